#include "provider/request_target.hpp"

#include <strings.h>

#include "common/percent_encoding.hpp"

namespace retryproof::provider {
namespace {

bool starts_with_ignoring_case(std::string_view text, std::string_view prefix) {
  return text.size() >= prefix.size() &&
         strncasecmp(text.data(), prefix.data(), prefix.size()) == 0;
}

}  // namespace

RequestTarget split_target(std::string_view target) {
  for (const std::string_view scheme : {"http://", "https://"}) {
    if (!starts_with_ignoring_case(target, scheme)) continue;
    const std::size_t path_at = target.find('/', scheme.size());
    target = path_at == std::string_view::npos ? std::string_view("/") : target.substr(path_at);
    break;
  }
  const std::size_t query_at = target.find('?');
  if (query_at == std::string_view::npos) return {percent_decode(target), {}};
  return {percent_decode(target.substr(0, query_at)), std::string(target.substr(query_at + 1))};
}

}  // namespace retryproof::provider
