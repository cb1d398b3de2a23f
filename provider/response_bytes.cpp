#include "provider/response_bytes.hpp"

#include <strings.h>

#include <array>
#include <boost/beast/http/status.hpp>
#include <charconv>

namespace retryproof::provider {
namespace {

// Headers the server writes itself: a decision cannot change the framing.
bool is_framing_header(const std::string& name) {
  for (const char* framing :
       {"Content-Length", "Transfer-Encoding", "Connection", "Content-Type"}) {
    if (strcasecmp(name.c_str(), framing) == 0) return true;
  }
  return false;
}

// A header that would split the head: never written, whoever asked for it.
bool breaks_the_head(std::string_view text) {
  return text.find_first_of(std::string_view("\r\n\0", 3)) != std::string_view::npos;
}

}  // namespace

std::string response_head(const Decision& decision, BodyFraming framing, AfterResponse after) {
  // Appended piece by piece into one string sized for a usual head and the body that
  // follows it (a content-length body is sent right after): one allocation.
  const auto reason =
      boost::beast::http::obsolete_reason(static_cast<boost::beast::http::status>(decision.status));
  std::string head;
  head.reserve(160 + decision.content_type.size() +
               (framing == BodyFraming::content_length ? decision.body.size() : 0));
  const auto append_number = [&head](auto number) {
    std::array<char, 24> digits{};
    const auto end = std::to_chars(digits.data(), digits.data() + digits.size(), number).ptr;
    head.append(digits.data(), end);
  };
  head.append("HTTP/1.1 ");
  append_number(decision.status);
  head.push_back(' ');
  head.append(reason.data(), reason.size());
  head.append("\r\n");
  for (const auto& [name, value] : decision.headers) {
    if (is_framing_header(name) || breaks_the_head(name) || breaks_the_head(value)) continue;
    head.append(name).append(": ").append(value).append("\r\n");
  }
  if (!decision.content_type.empty() && !breaks_the_head(decision.content_type)) {
    head.append("Content-Type: ").append(decision.content_type).append("\r\n");
  }
  switch (framing) {
    case BodyFraming::content_length:
      head.append("Content-Length: ");
      append_number(decision.body.size());
      head.append("\r\n");
      break;
    case BodyFraming::chunked:
      head.append("Transfer-Encoding: chunked\r\n");
      break;
    case BodyFraming::until_close:
      break;
  }
  if (after == AfterResponse::closes) head.append("Connection: close\r\n");
  if (after == AfterResponse::stays_open_for_http10) head.append("Connection: keep-alive\r\n");
  head.append("\r\n");
  return head;
}

std::string chunk(std::string_view data) {
  std::array<char, 16> size{};
  const auto end = std::to_chars(size.data(), size.data() + size.size(), data.size(), 16).ptr;
  std::string framed(size.data(), end);
  framed += "\r\n";
  framed += data;
  framed += "\r\n";
  return framed;
}

}  // namespace retryproof::provider
