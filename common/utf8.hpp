// UTF-8 as clients send it: possibly broken. Keys, payloads and standard error come from
// programs under test, so every string that reaches a report, a log or a length check is
// read as untrusted bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace retryproof {

inline constexpr std::string_view kReplacementCharacter = "\xEF\xBF\xBD";  // U+FFFD

// One code point of `text` at byte `at`: its value and length in bytes, or valid = false
// (length 1) for a byte that does not start a valid sequence — overlong forms and
// surrogates included.
struct DecodedCodePoint {
  std::uint32_t value = 0;
  std::size_t length = 1;
  bool valid = false;
};

inline DecodedCodePoint decode_code_point(std::string_view text, std::size_t at) {
  const auto lead = static_cast<unsigned char>(text[at]);
  std::size_t length = 0;
  std::uint32_t value = 0;
  std::uint32_t smallest = 0;
  if (lead < 0x80) {
    return {lead, 1, true};
  } else if ((lead & 0xE0u) == 0xC0u) {
    length = 2;
    value = lead & 0x1Fu;
    smallest = 0x80;
  } else if ((lead & 0xF0u) == 0xE0u) {
    length = 3;
    value = lead & 0x0Fu;
    smallest = 0x800;
  } else if ((lead & 0xF8u) == 0xF0u) {
    length = 4;
    value = lead & 0x07u;
    smallest = 0x10000;
  } else {
    return {};
  }
  if (at + length > text.size()) return {};
  for (std::size_t k = 1; k < length; ++k) {
    const auto next = static_cast<unsigned char>(text[at + k]);
    if ((next & 0xC0u) != 0x80u) return {};
    value = (value << 6) | (next & 0x3Fu);
  }
  if (value < smallest || value > 0x10FFFF || (value >= 0xD800 && value <= 0xDFFF)) return {};
  return {value, length, true};
}

// Calls visit(code_point, bytes) for each code point of `text`; a byte that does not start
// a valid UTF-8 sequence comes as U+FFFD, with the replacement character's bytes.
template <typename Visit>
void for_each_code_point(std::string_view text, Visit visit) {
  for (std::size_t i = 0; i < text.size();) {
    const DecodedCodePoint decoded = decode_code_point(text, i);
    if (decoded.valid) {
      visit(decoded.value, text.substr(i, decoded.length));
    } else {
      visit(std::uint32_t{0xFFFD}, kReplacementCharacter);
    }
    i += decoded.length;
  }
}

// The text with every invalid byte replaced by U+FFFD.
std::string valid_utf8(std::string_view text);

// Code points in `text`, or nothing when it is not valid UTF-8.
std::optional<std::size_t> utf8_length(std::string_view text);

bool is_valid_utf8(std::string_view text);

// The one escape form for bytes a client sent (keys, paths) where a person reads them: a log
// line, a report, and the control plane's JSON when the bytes are not UTF-8
// (docs/provider.md, *Keys as bytes*). Valid UTF-8 stays as it is, except that `\` is written
// `\\` and `"` is `\"`; every other byte is `\xHH` (two upper-case hex digits): a C0 control
// byte (CR, LF, ESC, NUL, BS...), DEL, each byte of a C1 control (U+0080 to U+009F), and each
// byte that is not part of valid UTF-8. Distinct bytes give distinct text, none of it a
// control character: a line cannot be split, repainted or given a forged field.
std::string escape_text(std::string_view bytes);

// The bytes escape_text() was given, or nothing when `text` is not its output.
std::optional<std::string> unescape_text(std::string_view text);

// escape_text() between double quotes: a field of a log line ("key=" + quoted_text(key)).
std::string quoted_text(std::string_view bytes);

}  // namespace retryproof
