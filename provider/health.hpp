// GET /_test/health: whether the server accepts connections, for what waits on it
// (containers, CI services, the embedding helpers). The provider and the proxy answer it
// in their servers, after the Host/Origin guard and before the core: it needs no control
// token, reads no state and is not journaled.
#pragma once

#include <optional>
#include <string_view>

#include "provider/http_types.hpp"

namespace retryproof::provider {

inline constexpr std::string_view kHealthPath = "/_test/health";

// 200 {"status":"ok","version":"<version>"} for GET or HEAD of kHealthPath, 405 for another
// method there, nothing for another path.
std::optional<Decision> answer_health(const HttpRequest& request);

}  // namespace retryproof::provider
