#include "common/json_text.hpp"

namespace retryproof {

std::string compact_json(const nlohmann::json& value) {
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string json_error_message(const nlohmann::json::exception& error) {
  std::string message = error.what();
  if (message.starts_with("[json.exception.")) {
    const auto end = message.find("] ");
    if (end != std::string::npos) message.erase(0, end + 2);
  }
  return message;
}

}  // namespace retryproof
