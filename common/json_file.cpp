#include "common/json_file.hpp"

#include <fstream>
#include <sstream>
#include <stdexcept>

#include "common/json_text.hpp"

namespace retryproof {

nlohmann::json read_json_file(const std::string& path) {
  std::ifstream file(path);
  if (!file) throw std::invalid_argument(path + ": cannot be read");
  std::stringstream text;
  text << file.rdbuf();
  try {
    return nlohmann::json::parse(text.str());
  } catch (const nlohmann::json::exception& error) {
    throw std::invalid_argument(path + ": not valid JSON: " + json_error_message(error));
  }
}

}  // namespace retryproof
