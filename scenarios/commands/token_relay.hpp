// A loopback relay in front of a provider's or proxy's control plane that adds the control
// token to every request: `retryproof ui-snapshot` points Chromium at it, so that the token
// is in no URL, no argument list and no log, and the browser never holds it.
//
// It only reads (GET and HEAD under /_test/; anything else is refused), so that while it
// runs it lends the token's power to read, never to reset or plan. It guards itself as the
// control plane does: a Host or Origin that is not its own loopback address is refused, so a
// web page in another browser cannot use it. It counts what it could not read (refusals,
// a server gone), so that a snapshot of an unreadable page is an error, not a quiet picture.
#pragma once

#include <httplib.h>

#include <atomic>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace retryproof::scenarios {

// What the relay could not read, as the server said it.
struct RelayTally {
  int refused = 0;            // 401 and 403 answers
  int unreachable = 0;        // requests the server did not answer
  std::string first_problem;  // the first of either, in the server's words
};

class TokenRelay {
 public:
  // `upstream` is a base URL (http://127.0.0.1:4040); without a token, requests go as they
  // came. Throws std::runtime_error when no loopback port can be bound.
  TokenRelay(std::string upstream, std::optional<std::string> token);
  ~TokenRelay();
  TokenRelay(const TokenRelay&) = delete;
  TokenRelay& operator=(const TokenRelay&) = delete;

  std::string base_url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  RelayTally tally() const;

 private:
  void relay(const httplib::Request& request, httplib::Response& response);
  bool is_own(const httplib::Request& request) const;
  void note(bool refused, const std::string& problem);

  std::string upstream_;
  std::optional<std::string> token_;
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  std::atomic<bool> listening_done_ = false;
  mutable std::mutex mutex_;
  RelayTally tally_;
};

// The body of a JSON error, as the control plane writes its own.
std::string relay_error_body(const std::string& code, const std::string& detail);

}  // namespace retryproof::scenarios
