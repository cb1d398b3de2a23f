#include "provider/request_head.hpp"

#include <algorithm>

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

std::optional<UnreadableRequestLine> unreadable_request_line(std::string_view head) {
  std::string_view line = head.substr(0, head.find('\n'));
  if (line.ends_with('\r')) line.remove_suffix(1);
  const std::size_t method_end = line.find(' ');
  if (method_end == std::string_view::npos || method_end == 0) return std::nullopt;
  const std::string_view method = line.substr(0, method_end);
  if (!std::all_of(method.begin(), method.end(), is_token_character)) return std::nullopt;
  std::string_view target = line.substr(method_end + 1);
  bool has_version = false;
  if (const std::size_t last_space = target.rfind(' '); last_space != std::string_view::npos) {
    const std::string_view version = target.substr(last_space + 1);
    if (version != "HTTP/1.1" && version != "HTTP/1.0") return std::nullopt;
    has_version = true;
    target = target.substr(0, last_space);
  }
  if (!target.starts_with('/') && !target.starts_with("http://")) return std::nullopt;
  // What HTTP allows in a target: visible ASCII and, as obs-text, bytes from 0x80.
  const bool forbidden_byte = std::any_of(target.begin(), target.end(), [](char c) {
    const auto byte = static_cast<unsigned char>(c);
    return byte <= 0x20 || byte == 0x7F;
  });
  if (forbidden_byte) {
    return UnreadableRequestLine{std::string(method), std::string(target),
                                 "the request target holds a byte HTTP does not allow there (a "
                                 "space or a control character such as CR): percent-encode it "
                                 "(%0D)"};
  }
  if (!has_version) {
    return UnreadableRequestLine{std::string(method), std::string(target),
                                 "the request line has no HTTP version: a line break (LF) in the "
                                 "target ends the line; percent-encode it (%0A)"};
  }
  return std::nullopt;
}

}  // namespace retryproof::provider
