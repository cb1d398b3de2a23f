// application/x-www-form-urlencoded bodies with bracket notation, as Stripe's SDKs send
// them (`amount=120&metadata[order]=42&items[0][price]=5`), read into JSON; and the one
// canonical form in which a JSON body and a form body of the same request fingerprint
// alike.
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>

namespace retryproof {

// Each `name=value` pair becomes a JSON string at its path: `a[b]` is an object field,
// `a[0]` an array element (indices dense from 0, at most 1000), `a[]` the next element.
// `+` and %XX are decoded in names and values. Throws std::invalid_argument naming the
// pair that is wrong (a name used both as a value and as an object, a bad index, nesting
// deeper than the JSON limit).
nlohmann::json parse_form_body(std::string_view body);

// The same value with every scalar as the string a form would carry: numbers as their
// canonical digits (120.0 as "120"), true/false as "true"/"false", null as "". A form body
// and the JSON body with the same meaning are then the same value.
nlohmann::json with_string_leaves(const nlohmann::json& value);

}  // namespace retryproof
