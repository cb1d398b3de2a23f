#include "client_under_test/transport.hpp"

#include <algorithm>
#include <cctype>

namespace retryproof::client {

std::string to_string(TransportFailure failure) {
  switch (failure) {
    case TransportFailure::none:
      return "none";
    case TransportFailure::not_sent:
      return "not-sent";
    case TransportFailure::timeout:
      return "timeout";
    case TransportFailure::closed:
      return "closed";
    case TransportFailure::truncated:
      return "truncated";
  }
  return "none";
}

std::string TransportResponse::header(const std::string& lower_case_name) const {
  const auto found = headers.find(lower_case_name);
  return found == headers.end() ? std::string() : found->second;
}

void TransportResponse::set_header(const std::string& name, const std::string& value) {
  std::string lower = name;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  headers[lower] = value;
}

}  // namespace retryproof::client
