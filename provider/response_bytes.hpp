// A Decision as bytes on the wire. Written by hand rather than by a serializer because
// the faults need byte-exact control: a truncation sends this same head, then half the
// body it promises.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "provider/http_types.hpp"

namespace retryproof::provider {

enum class BodyFraming {
  content_length,  // Content-Length: the size of decision.body
  chunked,         // Transfer-Encoding: chunked, for a streamed body
  until_close,     // neither: an HTTP/1.0 client reads the streamed body until the close
};

// What the client is told about the connection after this response.
enum class AfterResponse {
  stays_open,             // HTTP/1.1: persistent unless said otherwise
  stays_open_for_http10,  // HTTP/1.0 asked for keep-alive: Connection: keep-alive
  closes,                 // Connection: close
};

// The status line with its reason phrase, the decision's headers, Content-Type, the
// framing, and the Connection header `after` calls for.
std::string response_head(const Decision& decision, BodyFraming framing, AfterResponse after);

// One chunk of a chunked body; `data` must not be empty (an empty chunk ends the body).
std::string chunk(std::string_view data);
inline constexpr std::string_view kLastChunk = "0\r\n\r\n";

inline constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";

}  // namespace retryproof::provider
