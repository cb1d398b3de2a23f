#include "common/form_body.hpp"

#include <charconv>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/fingerprint.hpp"
#include "common/percent_encoding.hpp"

namespace retryproof {
namespace {

using nlohmann::json;

constexpr std::size_t kMaxIndex = 1000;
constexpr std::size_t kMaxDepth = 128;

// "items[0][price]" -> {"items", "0", "price"}; "a[]" -> {"a", ""}.
std::vector<std::string> path_of(const std::string& name, const std::string& pair) {
  const auto open = name.find('[');
  std::vector<std::string> path{name.substr(0, open)};
  if (path.front().empty()) throw std::invalid_argument("\"" + pair + "\": a field has a name");
  for (std::size_t at = open; at != std::string::npos && at < name.size();) {
    const auto close = name.find(']', at);
    if (name[at] != '[' || close == std::string::npos) {
      throw std::invalid_argument("\"" + pair + "\": brackets must pair up, as in a[b][0]");
    }
    path.push_back(name.substr(at + 1, close - at - 1));
    at = close + 1;
  }
  if (path.size() > kMaxDepth) throw std::invalid_argument("\"" + pair + "\": nested too deep");
  return path;
}

std::optional<std::size_t> index_of(const std::string& segment) {
  std::size_t index = 0;
  const auto [end, error] = std::from_chars(segment.data(), segment.data() + segment.size(), index);
  if (segment.empty() || error != std::errc{} || end != segment.data() + segment.size()) {
    return std::nullopt;
  }
  return index;
}

void place(json& root, const std::vector<std::string>& path, std::string value,
           const std::string& pair) {
  json* at = &root;
  for (std::size_t i = 0; i < path.size(); ++i) {
    const bool last = i + 1 == path.size();
    const std::string& segment = path[i];
    const auto index = index_of(segment);
    const bool next_is_array = !last && (path[i + 1].empty() || index_of(path[i + 1]));
    const auto conflict = [&] {
      throw std::invalid_argument("\"" + pair + "\": " + path[0] +
                                  " is given both as a value and as a list or object");
    };
    json* child = nullptr;
    if (at->is_array()) {
      const std::size_t position = segment.empty() ? at->size() : index.value_or(kMaxIndex + 1);
      if (!segment.empty() && !index) conflict();
      if (position > kMaxIndex || position > at->size()) {
        throw std::invalid_argument("\"" + pair +
                                    "\": list indices run from 0 without gaps, "
                                    "up to " +
                                    std::to_string(kMaxIndex));
      }
      if (position == at->size()) at->push_back(nullptr);
      child = &(*at)[position];
    } else {
      if (!at->is_object()) conflict();
      child = &(*at)[segment];
    }
    if (last) {
      if (!child->is_null()) conflict();
      *child = std::move(value);
      return;
    }
    if (child->is_null()) *child = next_is_array ? json::array() : json::object();
    if (child->is_string()) conflict();
    at = child;
  }
}

}  // namespace

std::string form_decode(std::string_view text) {
  std::string spaced(text);
  for (char& c : spaced) {
    if (c == '+') c = ' ';
  }
  return percent_decode(spaced);
}

std::optional<std::string> form_field(std::string_view encoded, std::string_view name) {
  for (std::size_t start = 0; start <= encoded.size();) {
    const std::size_t end = std::min(encoded.find('&', start), encoded.size());
    const std::string_view pair = encoded.substr(start, end - start);
    const std::size_t equals = pair.find('=');
    if (form_decode(pair.substr(0, equals)) == name) {
      return equals == std::string_view::npos ? std::string()
                                              : form_decode(pair.substr(equals + 1));
    }
    start = end + 1;
  }
  return std::nullopt;
}

json parse_form_body(std::string_view body) {
  json root = json::object();
  std::size_t start = 0;
  while (start < body.size()) {
    const std::size_t amp = std::min(body.find('&', start), body.size());
    const std::string_view pair = body.substr(start, amp - start);
    start = amp + 1;
    if (pair.empty()) continue;
    const std::size_t equals = std::min(pair.find('='), pair.size());
    const std::string name = form_decode(pair.substr(0, equals));
    const std::string value = equals < pair.size() ? form_decode(pair.substr(equals + 1)) : "";
    place(root, path_of(name, std::string(pair)), value, std::string(pair));
  }
  return root;
}

json with_string_leaves(const json& value) {
  if (value.is_object()) {
    json result = json::object();
    for (const auto& [name, element] : value.items())
      result[name] = with_string_leaves(element);
    return result;
  }
  if (value.is_array()) {
    json result = json::array();
    for (const auto& element : value)
      result.push_back(with_string_leaves(element));
    return result;
  }
  if (value.is_string()) return value;
  if (value.is_null()) return "";
  if (value.is_boolean()) return value.get<bool>() ? "true" : "false";
  return canonical_json(value);  // a number: its canonical digits
}

}  // namespace retryproof
