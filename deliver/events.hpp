// The events `retryproof deliver` sends: a JSON file holding an array of event objects, or
// {"events": [...]}, each with a unique, non-empty string "id". Each is sent as it is
// written, compact: the body a webhook receiver gets.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace retryproof::deliver {

struct Event {
  std::string id;
  std::string body;  // compact JSON: the exact bytes sent and signed
};

// Throws std::invalid_argument naming the entry and field that is wrong:
// "events[2].id: expected a non-empty string".
std::vector<Event> events_from_json(const nlohmann::json& document);

// Reads and validates a file; errors name it: "events.json: events[2].id: ...".
std::vector<Event> load_events(const std::filesystem::path& file);

}  // namespace retryproof::deliver
