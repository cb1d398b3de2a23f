#include "common/utf8.hpp"

namespace retryproof {

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

}  // namespace retryproof
