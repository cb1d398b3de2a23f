// application/x-www-form-urlencoded bodies with bracket notation, as Stripe's SDKs send
// them (`amount=120&metadata[order]=42&items[0][price]=5`), read into JSON; and the one
// canonical form in which a JSON body and a form body of the same request fingerprint
// alike.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace retryproof {

// Each `name=value` pair becomes a JSON string at its path: `a[b]` is an object field,
// `a[0]` an array element (indices dense from 0, at most 1000), `a[]` the next element.
// `+` and %XX are decoded in names and values. Throws std::invalid_argument naming the
// pair that is wrong (a name used both as a value and as an object, a bad index, nesting
// deeper than the JSON limit).
nlohmann::json parse_form_body(std::string_view body);

// One name or value of a form or a query string: `+` is a space, %XX its byte.
std::string form_decode(std::string_view text);

// The decoded value of the first `name=value` pair of a form or query string with this
// (decoded) name: "" for a bare `name`, nullopt when there is none.
std::optional<std::string> form_field(std::string_view encoded, std::string_view name);

// The same value with every scalar as the string a form would carry: numbers as their
// canonical digits (120.0 as "120"), true/false as "true"/"false", null as "". A form body
// and the JSON body with the same meaning are then the same value.
nlohmann::json with_string_leaves(const nlohmann::json& value);

}  // namespace retryproof
