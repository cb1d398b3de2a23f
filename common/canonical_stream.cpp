#include "common/canonical_stream.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

#include "common/fingerprint.hpp"

namespace retryproof {
namespace {

using json = nlohmann::json;

// A string as nlohmann's serializer writes it with ensure_ascii off. Its escaping is not
// public API, hence this copy; the property test holds the two to the same bytes. The
// parser hands over valid UTF-8 only, so a byte below 0x20 is always a whole code point
// and every other byte is copied as it is.
void append_escaped(std::string& out, std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  out.push_back('"');
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    switch (byte) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (byte < 0x20) {
          out += "\\u00";
          out.push_back(kHex[byte >> 4]);
          out.push_back(kHex[byte & 0xf]);
        } else {
          out.push_back(c);
        }
    }
  }
  out.push_back('"');
}

template <typename Integer>
void append_integer(std::string& out, Integer value) {
  std::array<char, 24> digits{};
  const auto end = std::to_chars(digits.data(), digits.data() + digits.size(), value).ptr;
  out.append(digits.data(), end);
}

// The SAX handler nlohmann's parser drives: it appends each value's canonical text as it
// comes. An object's members are written in arrival order and, when their keys did not
// arrive sorted and unique, rewritten in place at the object's end, sorted, the last of
// equal keys kept (as the DOM's std::map keeps the last assignment).
class CanonicalWriter {
 public:
  explicit CanonicalWriter(const CanonicalOptions& options) : options_(options) {}

  CanonicalText finish() && { return {std::move(out_), type_}; }

  bool null() {
    begin_value(json::value_t::null);
    out_ += options_.string_leaves ? "\"\"" : "null";
    return end_value();
  }
  bool boolean(bool value) {
    begin_value(json::value_t::boolean);
    if (options_.string_leaves) out_.push_back('"');
    out_ += value ? "true" : "false";
    if (options_.string_leaves) out_.push_back('"');
    return end_value();
  }
  bool number_integer(json::number_integer_t value) { return number(value); }
  bool number_unsigned(json::number_unsigned_t value) { return number(value); }
  bool number_float(json::number_float_t value, const std::string& /*spelling*/) {
    // As canonical_json: a float with an integral value exact in a double is that integer.
    if (std::trunc(value) == value && std::abs(value) < 9.0e15)
      return number(static_cast<std::int64_t>(value));
    begin_value(json::value_t::number_float);
    if (options_.string_leaves) out_.push_back('"');
    out_ += canonical_json(json(value));  // nlohmann's shortest round-trip digits
    if (options_.string_leaves) out_.push_back('"');
    return end_value();
  }
  bool string(std::string& value) {
    begin_value(json::value_t::string);
    append_escaped(out_, value);
    return end_value();
  }
  bool binary(json::binary_t& /*value*/) { return true; }  // JSON text has none

  bool start_object(std::size_t /*elements*/) {
    begin_value(json::value_t::object);
    frames_.push_back({true, out_.size(), members_.size(), keys_.size()});
    out_.push_back('{');
    return true;
  }
  bool key(std::string& name) {
    check_depth();
    Frame& frame = frames_.back();
    const std::size_t first = frame.first_member;
    if (members_.size() > first) {
      out_.push_back(',');
      const Member& previous = members_.back();
      if (!(key_of(previous) < std::string_view(name))) frame.sorted = false;
    }
    members_.push_back({out_.size(), 0, keys_.size(), name.size()});
    keys_ += name;
    append_escaped(out_, name);
    out_.push_back(':');
    return true;
  }
  bool end_object() {
    const Frame frame = frames_.back();
    if (frame.sorted) {
      out_.push_back('}');
    } else {
      rewrite_sorted(frame);
    }
    members_.resize(frame.first_member);
    keys_.resize(frame.keys_begin);
    frames_.pop_back();
    return end_value();
  }
  bool start_array(std::size_t /*elements*/) {
    begin_value(json::value_t::array);
    frames_.push_back({false, out_.size(), members_.size(), keys_.size()});
    out_.push_back('[');
    return true;
  }
  bool end_array() {
    out_.push_back(']');
    frames_.pop_back();
    return end_value();
  }

  template <typename Exception>
  bool parse_error(std::size_t /*position*/, const std::string& /*token*/, const Exception& error) {
    throw error;  // what nlohmann::json::parse() throws for the same text
  }

 private:
  struct Frame {
    bool object;
    std::size_t start;         // where its '{' or '[' is in out_
    std::size_t first_member;  // its members' first index in members_
    std::size_t keys_begin;    // where its keys start in keys_
    bool sorted = true;        // keys arrived strictly ascending so far
    std::size_t items = 0;     // an array's elements so far
  };
  struct Member {
    std::size_t begin;  // of `"key":value` in out_
    std::size_t end;
    std::size_t key_at;  // the key's unescaped bytes in keys_
    std::size_t key_size;
  };

  std::string_view key_of(const Member& member) const {
    return std::string_view(keys_).substr(member.key_at, member.key_size);
  }

  // The parser callback's depth of an event is the number of containers open around it.
  void check_depth() const {
    if (frames_.size() > options_.max_depth) throw JsonTooDeep("nested too deep");
  }

  void begin_value(json::value_t type) {
    check_depth();
    if (frames_.empty()) {
      type_ = type;
      return;
    }
    Frame& frame = frames_.back();
    if (!frame.object && frame.items++ > 0) out_.push_back(',');
  }
  bool end_value() {
    if (!frames_.empty() && frames_.back().object) members_.back().end = out_.size();
    return true;
  }

  template <typename Integer>
  bool number(Integer value) {
    begin_value(std::is_signed_v<Integer> ? json::value_t::number_integer
                                          : json::value_t::number_unsigned);
    if (options_.string_leaves) out_.push_back('"');
    append_integer(out_, value);
    if (options_.string_leaves) out_.push_back('"');
    return end_value();
  }

  void rewrite_sorted(const Frame& frame) {
    std::vector<std::size_t> order(members_.size() - frame.first_member);
    std::iota(order.begin(), order.end(), frame.first_member);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return key_of(members_[a]) < key_of(members_[b]);
    });
    std::string sorted = "{";
    for (std::size_t i = 0; i < order.size(); ++i) {
      // Of equal keys, stable sorting leaves the last sent last: the one the DOM keeps.
      if (i + 1 < order.size() && key_of(members_[order[i]]) == key_of(members_[order[i + 1]]))
        continue;
      const Member& member = members_[order[i]];
      if (sorted.size() > 1) sorted.push_back(',');
      sorted.append(out_, member.begin, member.end - member.begin);
    }
    sorted.push_back('}');
    out_.resize(frame.start);
    out_ += sorted;
  }

  const CanonicalOptions& options_;
  std::string out_;
  json::value_t type_ = json::value_t::null;
  std::vector<Frame> frames_;
  std::vector<Member> members_;  // of the objects open, innermost last
  std::string keys_;             // their keys, unescaped, for sorting
};

}  // namespace

CanonicalText canonical_json_text(std::string_view text, const CanonicalOptions& options) {
  CanonicalWriter writer(options);
  json::sax_parse(text, &writer);  // strict: nothing but white space after the value
  return std::move(writer).finish();
}

}  // namespace retryproof
