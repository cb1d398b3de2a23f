// Byte-level HTTP for tests: what exactly reached the socket, and how the connection ended.
#pragma once

#include <chrono>
#include <string>

namespace retryproof::provider::testing {

enum class ConnectionEnd { eof, reset, timeout };

struct RawExchange {
  std::string received;  // every byte the server sent
  ConnectionEnd end = ConnectionEnd::timeout;
};

enum class ReadUntil {
  closed,    // the server closes the connection
  response,  // one complete response (headers and Content-Length bytes) has arrived
};

// Connects to 127.0.0.1:port, writes `request` and reads until `until` or `deadline`.
RawExchange raw_exchange(int port, const std::string& request, ReadUntil until = ReadUntil::closed,
                         std::chrono::milliseconds deadline = std::chrono::seconds(5));

// A complete HTTP/1.1 request with Connection: close. An empty key sends no header.
std::string raw_post_jobs(const std::string& key, const std::string& body);

}  // namespace retryproof::provider::testing
