#include "common/json_text.hpp"

#include <stdexcept>

#include "common/utf8.hpp"

namespace retryproof {

std::string compact_json(const nlohmann::json& value) {
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

void put_client_text(nlohmann::json& object, const std::string& name, std::string_view bytes) {
  if (is_valid_utf8(bytes)) {
    object[name] = std::string(bytes);
    return;
  }
  object[name] = escape_text(bytes);
  object[name + "Escaped"] = true;
}

std::optional<std::string> client_text(const nlohmann::json& object, const std::string& name) {
  const auto found = object.find(name);
  if (found == object.end() || found->is_null()) return std::nullopt;
  if (!found->is_string())
    throw std::invalid_argument("\"" + name + "\": expected a string or null");
  const auto& text = found->get_ref<const std::string&>();
  const auto escaped = object.find(name + "Escaped");
  if (escaped == object.end() || !escaped->is_boolean() || !escaped->get<bool>()) return text;
  auto bytes = unescape_text(text);
  if (!bytes) {
    throw std::invalid_argument("\"" + name + "\": not in the escaped form (\\xHH, \\\\, \\\")");
  }
  return bytes;
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
