#include "provider/request_head.hpp"

namespace retryproof::provider {
namespace {

// RFC 9110 5.6.2: a method is a token.
bool is_token_character(char c) {
  const auto byte = static_cast<unsigned char>(c);
  if (byte >= '0' && byte <= '9') return true;
  if ((byte | 0x20) >= 'a' && (byte | 0x20) <= 'z') return true;
  return std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

// Whether the bytes so far can still begin a request line: a method, then a space.
bool can_begin_request_line(std::string_view received) {
  for (const char c : received) {
    if (c == ' ') return true;
    if (!is_token_character(c)) return false;
  }
  return true;
}

}  // namespace

HeadScan scan_request_head(std::string_view received, const HeadLimits& limits) {
  HeadScan scan;
  // RFC 9112 2.2: a server should ignore empty lines before a request line (some clients
  // send a CRLF after a POST body). They count against the request line's limit.
  while (received.starts_with("\r\n") || received.starts_with("\n")) {
    const std::size_t length = received.starts_with("\n") ? 1 : 2;
    scan.empty_lines += length;
    received.remove_prefix(length);
  }
  if (!can_begin_request_line(received)) {
    scan.status = HeadStatus::not_http;
    return scan;
  }
  const std::size_t line_end = received.find('\n');
  const std::size_t line_length = line_end == std::string_view::npos ? received.size() : line_end;
  if (scan.empty_lines + line_length > limits.max_request_line_bytes + 1) {  // + 1: its CR
    scan.status = HeadStatus::request_line_too_long;
    return scan;
  }
  if (line_end == std::string_view::npos) return scan;

  std::size_t fields = 0;
  for (std::size_t at = line_end + 1;;) {
    if (at > limits.max_head_bytes) {
      scan.status = HeadStatus::too_large;
      return scan;
    }
    const std::size_t next = received.find('\n', at);
    if (next == std::string_view::npos) {
      if (received.size() > limits.max_head_bytes) scan.status = HeadStatus::too_large;
      return scan;
    }
    std::string_view line = received.substr(at, next - at);
    if (line.ends_with('\r')) line.remove_suffix(1);
    if (line.empty()) {
      scan.size = next + 1;
      scan.status =
          scan.size > limits.max_head_bytes ? HeadStatus::too_large : HeadStatus::complete;
      return scan;
    }
    if (line.front() == ' ' || line.front() == '\t') {
      scan.status = HeadStatus::obsolete_folding;
      return scan;
    }
    if (++fields > limits.max_fields) {
      scan.status = HeadStatus::too_many_fields;
      return scan;
    }
    at = next + 1;
  }
}

}  // namespace retryproof::provider
