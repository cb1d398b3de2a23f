#include "common/utf8.hpp"

namespace retryproof {
namespace {

constexpr char kHexDigits[] = "0123456789ABCDEF";

void append_escaped_byte(std::string& out, unsigned char byte) {
  out += "\\x";
  out += kHexDigits[byte >> 4];
  out += kHexDigits[byte & 0x0F];
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;  // lower case is not escape_text()'s output
}

}  // namespace

std::string valid_utf8(std::string_view text) {
  std::string result;
  result.reserve(text.size());
  for_each_code_point(text, [&](std::uint32_t, std::string_view bytes) { result += bytes; });
  return result;
}

std::optional<std::size_t> utf8_length(std::string_view text) {
  std::size_t characters = 0;
  for (std::size_t i = 0; i < text.size(); ++characters) {
    const DecodedCodePoint decoded = decode_code_point(text, i);
    if (!decoded.valid) return std::nullopt;
    i += decoded.length;
  }
  return characters;
}

bool is_valid_utf8(std::string_view text) {
  return utf8_length(text).has_value();
}

std::string escape_text(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  for (std::size_t i = 0; i < bytes.size();) {
    const DecodedCodePoint decoded = decode_code_point(bytes, i);
    const std::uint32_t value = decoded.value;
    const bool control = value < 0x20 || (value >= 0x7F && value <= 0x9F);
    if (!decoded.valid || control) {
      for (std::size_t k = 0; k < decoded.length; ++k)
        append_escaped_byte(out, static_cast<unsigned char>(bytes[i + k]));
    } else if (value == '\\' || value == '"') {
      out += '\\';
      out += static_cast<char>(value);
    } else {
      out += bytes.substr(i, decoded.length);
    }
    i += decoded.length;
  }
  return out;
}

std::optional<std::string> unescape_text(std::string_view text) {
  std::string bytes;
  bytes.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '"') return std::nullopt;
    if (text[i] != '\\') {
      bytes += text[i];
      continue;
    }
    if (++i == text.size()) return std::nullopt;
    if (text[i] == '\\' || text[i] == '"') {
      bytes += text[i];
      continue;
    }
    if (text[i] != 'x' || i + 2 >= text.size()) return std::nullopt;
    const int high = hex_value(text[i + 1]);
    const int low = hex_value(text[i + 2]);
    if (high < 0 || low < 0) return std::nullopt;
    bytes += static_cast<char>(high * 16 + low);
    i += 2;
  }
  // Only an exact inverse: text that escape_text() would have written otherwise is not its.
  if (escape_text(bytes) != text) return std::nullopt;
  return bytes;
}

std::string quoted_text(std::string_view bytes) {
  return '"' + escape_text(bytes) + '"';
}

}  // namespace retryproof
