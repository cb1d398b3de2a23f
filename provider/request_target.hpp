// A request target as the core wants it: the path percent-decoded, the query apart.
#pragma once

#include <string>
#include <string_view>

namespace retryproof::provider {

struct RequestTarget {
  std::string path;   // percent-decoded
  std::string query;  // raw, without the '?'
};

// Accepts the origin form ("/jobs?x=1") and the absolute form a proxy-minded client may
// send ("http://host:4040/jobs"), whose scheme and authority are dropped.
RequestTarget split_target(std::string_view target);

}  // namespace retryproof::provider
