// GET /_test/ui, the live page, and its script and style at /_test/ui/<file>: control
// endpoints the provider and the proxy both serve (ProviderConfig::control_endpoints,
// ProxyConfig::control_endpoints). They hold no data and need no control token (a browser
// opening a page cannot send one); the page asks for the token and sends it with each data
// call it makes (/_test/journal, /_test/faults, /_test/verdicts). The Host and Origin guard
// applies to them as to every /_test/ call.
#pragma once

#include <string_view>
#include <vector>

#include "provider/provider_core.hpp"

namespace retryproof::ui {

inline constexpr std::string_view kPagePath = "/_test/ui";

// The Content-Security-Policy of the live page: its own scripts, style and data calls
// only; no inline script or style, no frame around it, no form posted anywhere.
inline constexpr std::string_view kPagePolicy =
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
    "img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

// The page at kPagePath, then each asset at kPagePath/<file name>.
std::vector<provider::ControlEndpoint> ui_endpoints();

}  // namespace retryproof::ui
