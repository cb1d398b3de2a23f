#include "ui/ui_endpoints.hpp"

#include <string>

#include "ui/ui_assets.hpp"

namespace retryproof::ui {
namespace {

provider::ControlEndpoint file_endpoint(std::string path, std::string_view name) {
  return {.path = std::move(path),
          .error_code = "invalid_ui_query",
          .answer =
              [name](const std::string&, const std::vector<provider::JournalEntry>&,
                     const provider::ControlContext&) {
                return provider::ControlAnswer{
                    .body = std::string(asset(name)),
                    .content_type = std::string(media_type(name)),
                    .headers = {{"Content-Security-Policy", std::string(kPagePolicy)},
                                // A script is run as a script only when served as one.
                                {"X-Content-Type-Options", "nosniff"},
                                {"Referrer-Policy", "no-referrer"},
                                // The page changes with the program: never an old copy.
                                {"Cache-Control", "no-store"},
                                {"Cross-Origin-Resource-Policy", "same-origin"}}};
              },
          .needs_token = false,
          .reads_journal = false};
}

}  // namespace

std::vector<provider::ControlEndpoint> ui_endpoints() {
  std::vector<provider::ControlEndpoint> endpoints = {
      file_endpoint(std::string(kPagePath), "index.html")};
  for (const EmbeddedFile& file : embedded_files()) {
    if (file.name.ends_with(".html")) continue;  // the page is served at kPagePath
    endpoints.push_back(
        file_endpoint(std::string(kPagePath) + "/" + std::string(file.name), file.name));
  }
  return endpoints;
}

}  // namespace retryproof::ui
