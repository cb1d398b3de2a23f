#include "deliver/events.hpp"

#include <map>
#include <stdexcept>

#include "common/json_file.hpp"
#include "common/json_text.hpp"

namespace retryproof::deliver {

std::vector<Event> events_from_json(const nlohmann::json& document) {
  const nlohmann::json* entries = &document;
  if (document.is_object()) {
    const auto found = document.find("events");
    if (found == document.end())
      throw std::invalid_argument("expected {\"events\": [...]} or an array of events");
    entries = &*found;
  }
  if (!entries->is_array() || entries->empty())
    throw std::invalid_argument("\"events\": expected a non-empty array of event objects");
  std::vector<Event> events;
  std::map<std::string, std::size_t> index_of_id;
  for (std::size_t i = 0; i < entries->size(); ++i) {
    const nlohmann::json& event = (*entries)[i];
    const std::string place = "events[" + std::to_string(i) + "]";
    if (!event.is_object()) throw std::invalid_argument(place + ": expected an event object");
    const auto id = event.find("id");
    if (id == event.end() || !id->is_string() || id->get_ref<const std::string&>().empty())
      throw std::invalid_argument(place + ".id: expected a non-empty string, the event's id");
    const auto [first, added] = index_of_id.emplace(id->get<std::string>(), i);
    if (!added) {
      throw std::invalid_argument(place + ".id: \"" + first->first +
                                  "\" is also the id of events[" + std::to_string(first->second) +
                                  "]; give each event its own id (the duplicates are deliver's "
                                  "to send)");
    }
    events.push_back({id->get<std::string>(), compact_json(event)});
  }
  return events;
}

std::vector<Event> load_events(const std::filesystem::path& file) {
  const nlohmann::json document = read_json_file(file.string());
  try {
    return events_from_json(document);
  } catch (const std::invalid_argument& error) {
    throw std::invalid_argument(file.string() + ": " + error.what());
  }
}

}  // namespace retryproof::deliver
