// A JSON file read with errors that name it, for commands that take one (judge's journal,
// deliver's events).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace retryproof {

// Throws std::invalid_argument naming the file: "PATH: cannot be read", or "PATH: not valid
// JSON: <where, and what>".
nlohmann::json read_json_file(const std::string& path);

}  // namespace retryproof
