// A JSON object's field names checked against the ones a format knows, so that a typo in a
// plan is an error that names it, with the field it was probably meant to be.
#pragma once

#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace retryproof {

// Throws std::invalid_argument "WHERE: unknown field "X" (did you mean "Y"?)" for the first
// field of `object` not in `known`.
void refuse_unknown_fields(const nlohmann::json& object, const std::string& where,
                           std::initializer_list<std::string_view> known);

}  // namespace retryproof
