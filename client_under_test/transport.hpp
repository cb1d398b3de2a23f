// How the client reaches the provider. Outcomes are told apart by what they prove about
// the request: nothing sent, a response, or an ambiguous end.
#pragma once

#include <map>
#include <string>

#include "client_under_test/time_and_chance.hpp"
#include "common/percent_encoding.hpp"

namespace retryproof::client {

struct TransportRequest {
  std::string method;  // "POST" or "GET"
  std::string path;    // already percent-encoded
  std::map<std::string, std::string> headers;
  std::string body;
  Millis timeout{2000};  // for the whole exchange
};

enum class TransportFailure {
  none,       // a complete response arrived
  not_sent,   // connection refused or failed: the provider saw nothing
  timeout,    // sent, and no complete response in time
  closed,     // sent, and the connection closed or was reset without a response
  truncated,  // a response began but its body was cut short
};

std::string to_string(TransportFailure failure);

struct TransportResponse {
  TransportFailure failure = TransportFailure::none;
  int status = 0;                              // when failure == none
  std::map<std::string, std::string> headers;  // names in lower case
  std::string body;

  bool ok() const { return failure == TransportFailure::none; }
  std::string header(const std::string& lower_case_name) const;
  // Stores a header under its lower-case name: HTTP header names are case-insensitive.
  void set_header(const std::string& name, const std::string& value);
};

class Transport {
 public:
  virtual ~Transport() = default;
  virtual TransportResponse send(const TransportRequest& request) = 0;
};

using retryproof::percent_decode;  // common/percent_encoding.hpp
using retryproof::percent_encode;

}  // namespace retryproof::client
