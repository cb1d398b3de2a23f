// A request head as raw bytes, checked against the server's limits before any parser
// sees it: a request line too long (414), too many fields or bytes (431), or obsolete
// line folding (400, since a folded line can be read as two different headers). The
// parser is then given exactly one complete head.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace retryproof::provider {

struct HeadLimits {
  std::size_t max_request_line_bytes;
  std::size_t max_fields;
  std::size_t max_head_bytes;
};

enum class HeadStatus {
  incomplete,  // more bytes are needed, and none of the limits is passed yet
  complete,    // `size` bytes, from the request line to the empty line
  request_line_too_long,
  too_many_fields,
  too_large,
  obsolete_folding,
  not_http,  // the request line cannot begin like this (TLS, binary): said at once
};

struct HeadScan {
  HeadStatus status = HeadStatus::incomplete;
  std::size_t empty_lines = 0;  // bytes of empty lines before the request line, to skip
  std::size_t size = 0;         // when complete: the head's bytes after the empty lines
};

HeadScan scan_request_head(std::string_view received, const HeadLimits& limits);

// A request line the parser refused but a person can read as a request to a route: its
// target holds a byte HTTP forbids there (a raw CR, ESC, NUL: a key sent without
// percent-encoding), or it lacks its version (a raw LF in the target ended the line). The
// server has the handler journal such a request and refuse it (400), rather than answer it
// unseen. Anything else (no target beginning "/" or "http", another protocol) is nothing.
struct UnreadableRequestLine {
  std::string method;
  std::string target;   // as sent, raw bytes and all
  std::string problem;  // what the client should do about it, for the 400's detail
};
std::optional<UnreadableRequestLine> unreadable_request_line(std::string_view head);

}  // namespace retryproof::provider
