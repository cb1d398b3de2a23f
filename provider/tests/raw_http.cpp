#include "provider/tests/raw_http.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <stdexcept>
#include <utility>

namespace retryproof::provider::testing {
namespace {

using Clock = std::chrono::steady_clock;

bool iequals_prefix(std::string_view text, std::size_t at, std::string_view prefix) {
  if (text.size() < at + prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(text[at + i])) !=
        std::tolower(static_cast<unsigned char>(prefix[i]))) {
      return false;
    }
  }
  return true;
}

// The value of header `name` (given with its colon, lower case) in `head`, if present.
std::optional<std::string_view> header_value(std::string_view head, std::string_view name) {
  for (std::size_t line = head.find("\r\n"); line != std::string_view::npos;
       line = head.find("\r\n", line + 2)) {
    if (!iequals_prefix(head, line + 2, name)) continue;
    std::size_t start = line + 2 + name.size();
    while (start < head.size() && head[start] == ' ')
      ++start;
    const std::size_t end = head.find("\r\n", start);
    return head.substr(start, end == std::string_view::npos ? end : end - start);
  }
  return std::nullopt;
}

// The end of a chunked body starting at `at`, or nothing while incomplete.
std::optional<std::size_t> chunked_body_end(std::string_view received, std::size_t at) {
  while (true) {
    const std::size_t line_end = received.find("\r\n", at);
    if (line_end == std::string_view::npos) return std::nullopt;
    std::size_t size = 0;
    std::from_chars(received.data() + at, received.data() + line_end, size, 16);
    at = line_end + 2;
    if (size == 0) {  // the last chunk, then (no trailers from our server) an empty line
      if (received.size() < at + 2) return std::nullopt;
      return at + 2;
    }
    if (received.size() < at + size + 2) return std::nullopt;
    at += size + 2;
  }
}

}  // namespace

std::optional<std::size_t> complete_response_size(std::string_view received) {
  const auto head_end = received.find("\r\n\r\n");
  if (head_end == std::string_view::npos) return std::nullopt;
  const std::string_view head = received.substr(0, head_end + 2);
  const std::size_t body_start = head_end + 4;
  if (const auto encoding = header_value(head, "transfer-encoding:");
      encoding && *encoding == "chunked") {
    return chunked_body_end(received, body_start);
  }
  std::size_t length = 0;
  if (const auto value = header_value(head, "content-length:")) {
    std::from_chars(value->data(), value->data() + value->size(), length);
  }
  if (received.size() < body_start + length) return std::nullopt;
  return body_start + length;
}

std::optional<CutResponse> cut_response(std::string_view received) {
  const auto head_end = received.find("\r\n\r\n");
  if (head_end == std::string_view::npos) return std::nullopt;
  const auto value = header_value(received.substr(0, head_end + 2), "content-length:");
  if (!value) return std::nullopt;
  CutResponse cut{std::string(received.substr(head_end + 4)), 0};
  std::from_chars(value->data(), value->data() + value->size(), cut.promised);
  return cut;
}

RawConnection::RawConnection(int port) : fd_(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
  if (fd_ < 0) throw std::runtime_error("socket() failed");
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd_, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0) {
    ::close(fd_);
    throw std::runtime_error("connect() failed");
  }
}

RawConnection::~RawConnection() {
  if (fd_ >= 0) ::close(fd_);
}

RawConnection::RawConnection(RawConnection&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), buffered_(std::move(other.buffered_)) {}

bool RawConnection::send(std::string_view bytes) {
  for (std::size_t sent = 0; sent < bytes.size();) {
    const ssize_t n = ::send(fd_, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return false;
    sent += static_cast<std::size_t>(n);
  }
  return true;
}

bool RawConnection::read_more(Clock::time_point give_up_at, ConnectionEnd& end) {
  const auto left =
      std::chrono::duration_cast<std::chrono::milliseconds>(give_up_at - Clock::now());
  if (left.count() <= 0) {
    end = ConnectionEnd::timeout;
    return false;
  }
  pollfd readable{fd_, POLLIN, 0};
  if (::poll(&readable, 1, static_cast<int>(left.count())) <= 0) return true;  // look again
  std::array<char, 16384> buffer{};
  const ssize_t n = ::recv(fd_, buffer.data(), buffer.size(), 0);
  if (n > 0) {
    buffered_.append(buffer.data(), static_cast<std::size_t>(n));
    return true;
  }
  end = n == 0 ? ConnectionEnd::eof
               : (errno == ECONNRESET ? ConnectionEnd::reset : ConnectionEnd::timeout);
  return false;
}

std::optional<std::string> RawConnection::read_response(std::chrono::milliseconds deadline) {
  const auto give_up_at = Clock::now() + deadline;
  ConnectionEnd end = ConnectionEnd::timeout;
  while (true) {
    if (const auto size = complete_response_size(buffered_)) {
      std::string response = buffered_.substr(0, *size);
      buffered_.erase(0, *size);
      return response;
    }
    if (!read_more(give_up_at, end)) return std::nullopt;
  }
}

RawExchange RawConnection::read_until_closed(std::chrono::milliseconds deadline) {
  const auto give_up_at = Clock::now() + deadline;
  RawExchange exchange;
  while (read_more(give_up_at, exchange.end)) {
  }
  exchange.received = std::exchange(buffered_, {});
  return exchange;
}

RawExchange raw_exchange(int port, const std::string& request, ReadUntil until,
                         std::chrono::milliseconds deadline) {
  RawConnection connection(port);
  // The server may close early (a body over the limit): read what it said regardless.
  connection.send(request);
  if (until == ReadUntil::closed) return connection.read_until_closed(deadline);
  if (auto response = connection.read_response(deadline)) {
    return {.received = std::move(*response), .end = ConnectionEnd::timeout};
  }
  return connection.read_until_closed(std::chrono::milliseconds(0));  // what did arrive
}

std::string raw_post_jobs(const std::string& key, const std::string& body) {
  std::string request = "POST /jobs HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n";
  if (!key.empty()) request += "Idempotency-Key: " + key + "\r\n";
  request += "Content-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
             "\r\n\r\n" + body;
  return request;
}

std::string raw_post_jobs_keep_alive(const std::string& key, const std::string& body) {
  return "POST /jobs HTTP/1.1\r\nHost: 127.0.0.1\r\nIdempotency-Key: " + key +
         "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
         "\r\n\r\n" + body;
}

bool open_idle_and_half_sent(int port, int count, std::vector<RawConnection>& clients) {
  for (int i = 0; i < count; ++i) {
    clients.emplace_back(port);
    clients.back().send(raw_post_jobs_keep_alive("idle-" + std::to_string(i), "{}"));
    if (!clients.back().read_response(std::chrono::seconds(5))) return false;
  }
  for (int i = 0; i < count; ++i) {
    clients.emplace_back(port);
    clients.back().send("POST /jobs HTTP/1.1\r\nHost: 127.0.0.1\r\n");
  }
  return true;
}

std::string raw_control_request(int port, const std::string& method, const std::string& path,
                                const std::string& body, const std::string& origin) {
  return method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) +
         (origin.empty() ? "" : "\r\nOrigin: " + origin) +
         "\r\nConnection: close\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" +
         body;
}

int status_of(std::string_view response) {
  int status = 0;
  if (response.size() >= 12 && response.starts_with("HTTP/1.")) {
    std::from_chars(response.data() + 9, response.data() + 12, status);
  }
  return status;
}

std::string body_of(std::string_view response) {
  const auto head_end = response.find("\r\n\r\n");
  if (head_end == std::string_view::npos) return {};
  const std::string_view rest = response.substr(head_end + 4);
  const auto encoding = header_value(response.substr(0, head_end + 2), "transfer-encoding:");
  if (!encoding || *encoding != "chunked") return std::string(rest);
  std::string body;  // the chunks' data, joined, as an HTTP client reads it
  for (std::size_t at = 0;;) {
    const std::size_t line_end = rest.find("\r\n", at);
    if (line_end == std::string_view::npos) return body;
    std::size_t size = 0;
    std::from_chars(rest.data() + at, rest.data() + line_end, size, 16);
    if (size == 0 || line_end + 2 + size > rest.size()) return body;
    body.append(rest.substr(line_end + 2, size));
    at = line_end + 2 + size + 2;
  }
}

}  // namespace retryproof::provider::testing
