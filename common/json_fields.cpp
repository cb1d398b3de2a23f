#include "common/json_fields.hpp"

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "common/suggest.hpp"

namespace retryproof {

void refuse_unknown_fields(const nlohmann::json& object, const std::string& where,
                           std::initializer_list<std::string_view> known) {
  for (const auto& [field, value] : object.items()) {
    if (std::find(known.begin(), known.end(), field) != known.end()) continue;
    throw std::invalid_argument(
        where + ": unknown field \"" + field + "\"" +
        did_you_mean(field, std::vector<std::string>(known.begin(), known.end())));
  }
}

}  // namespace retryproof
