#include "scenarios/reports/text.hpp"

#include <algorithm>
#include <cstring>

#include "common/utf8.hpp"

namespace retryproof::scenarios::reports {

using nlohmann::json;

// The same JSON with every string (and key) made valid UTF-8, so that dump() cannot throw.
json clean_json(const json& value) {
  if (value.is_string()) return valid_utf8(value.get_ref<const std::string&>());
  if (value.is_array()) {
    json result = json::array();
    for (const auto& element : value)
      result.push_back(clean_json(element));
    return result;
  }
  if (value.is_object()) {
    json result = json::object();
    for (const auto& [key, element] : value.items())
      result[valid_utf8(key)] = clean_json(element);
    return result;
  }
  return value;
}

bool is_control(std::uint32_t code_point) {
  return code_point < 0x20 || (code_point >= 0x7F && code_point <= 0x9F);
}

// One line for a terminal: no escape sequences or other control characters a client could use
// to repaint the screen; tabs and line breaks become spaces.
std::string terminal_text(std::string_view text) {
  std::string result;
  for_each_code_point(text, [&](std::uint32_t code_point, std::string_view bytes) {
    if (code_point == '\t' || code_point == '\n' || code_point == '\r') {
      result += ' ';
    } else if (!is_control(code_point)) {
      result += bytes;
    }
  });
  return result;
}

// Columns on a terminal, counting code points (valid UTF-8 assumed).
std::size_t display_width(std::string_view text) {
  return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0u) != 0x80u;
  }));
}

// XML 1.0: the five special characters as entities, the control characters it forbids (and
// U+FFFE, U+FFFF) dropped. In attributes, tabs and line breaks become character references so
// that attribute normalisation keeps them.
std::string xml_escape(std::string_view text, XmlPlace place) {
  const bool attribute = place == XmlPlace::attribute;
  std::string result;
  result.reserve(text.size());
  for_each_code_point(text, [&](std::uint32_t code_point, std::string_view bytes) {
    switch (code_point) {
      case '&':
        result += "&amp;";
        return;
      case '<':
        result += "&lt;";
        return;
      case '>':
        result += "&gt;";
        return;
      case '"':
        result += "&quot;";
        return;
      case '\'':
        result += "&apos;";
        return;
      case '\t':
        result += attribute ? "&#9;" : "\t";
        return;
      case '\n':
        result += attribute ? "&#10;" : "\n";
        return;
      case '\r':
        result += "&#13;";
        return;
      default:
        break;
    }
    if (code_point < 0x20 || code_point == 0xFFFE || code_point == 0xFFFF) return;
    result += bytes;
  });
  return result;
}

// Markdown text, also inside a table cell: one line, the characters Markdown gives a meaning
// escaped, HTML's specials as entities.
std::string markdown_text(std::string_view text) {
  std::string result;
  for_each_code_point(text, [&](std::uint32_t code_point, std::string_view bytes) {
    switch (code_point) {
      case '&':
        result += "&amp;";
        return;
      case '<':
        result += "&lt;";
        return;
      case '>':
        result += "&gt;";
        return;
      case '\\':
      case '|':
      case '*':
      case '_':
      case '`':
      case '[':
      case ']':
      case '#':
      case '~':
        result += '\\';
        result += static_cast<char>(code_point);
        return;
      default:
        break;
    }
    if (is_control(code_point)) {
      result += ' ';
    } else {
      result += bytes;
    }
  });
  return result;
}

// A Markdown code span around `text`, with a fence longer than any run of backticks in it.
std::string code_span(std::string_view text) {
  std::string clean;
  std::size_t run = 0;
  std::size_t longest = 0;
  for_each_code_point(text, [&](std::uint32_t code_point, std::string_view bytes) {
    run = code_point == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
    if (code_point == '|') {
      clean += "\\|";  // GFM splits table cells before it reads code spans
    } else {
      clean += is_control(code_point) ? std::string_view(" ") : bytes;
    }
  });
  const std::string fence(longest + 1, '`');
  const bool pad = !clean.empty() && (clean.front() == '`' || clean.back() == '`');
  return fence + (pad ? " " : "") + clean + (pad ? " " : "") + fence;
}

// Text of a Mermaid message or note: entity codes for what its parser reads as syntax (; ends a
// statement, # starts an entity, < and > become HTML) and no line breaks.
std::string mermaid_text(std::string_view text) {
  std::string result;
  for_each_code_point(text, [&](std::uint32_t code_point, std::string_view bytes) {
    switch (code_point) {
      case '#':
        result += "#35;";
        return;
      case ';':
        result += "#59;";
        return;
      case '|':
        result += "#124;";
        return;
      case '<':
        result += "#lt;";
        return;
      case '>':
        result += "#gt;";
        return;
      case '`':
        result += "#96;";
        return;
      default:
        break;
    }
    if (is_control(code_point)) {
      result += ' ';
    } else {
      result += bytes;
    }
  });
  return result;
}

std::string join(const std::vector<std::string>& parts, std::string_view separator) {
  std::string result;
  for (const auto& part : parts) {
    if (!result.empty()) result += separator;
    result += part;
  }
  return result;
}

std::string count_of(std::size_t count, std::string_view noun) {
  return std::to_string(count) + " " + std::string(noun) + (count == 1 ? "" : "s");
}

std::vector<std::string> split_lines(std::string_view text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.emplace_back(line);
    start = end + 1;
  }
  return lines;
}

std::vector<std::string> last(std::vector<std::string> lines, std::size_t count) {
  if (lines.size() > count)
    lines.erase(lines.begin(), lines.end() - static_cast<std::ptrdiff_t>(count));
  return lines;
}

std::string shell_quote(std::string_view text) {
  const bool plain = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 ||
           std::strchr("_./:=@%+,-", c) != nullptr;
  });
  if (plain) return std::string(text);
  std::string quoted = "'";
  for (const char c : text) {
    if (c == '\'') {
      quoted += "'\\''";
    } else {
      quoted += c;
    }
  }
  return quoted + "'";
}

}  // namespace retryproof::scenarios::reports
