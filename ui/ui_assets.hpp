// The files of the live page (ui/assets/), compiled into the program by
// ui/embed_assets.cmake: the server serves them as they are, and the saved run's page
// (`run --html`) inlines them.
#pragma once

#include <string_view>
#include <vector>

namespace retryproof::ui {

struct EmbeddedFile {
  std::string_view name;   // "live.js": its file name under ui/assets/
  std::string_view bytes;  // as the file holds them
};

// Every asset, in ui/CMakeLists.txt's order.
const std::vector<EmbeddedFile>& embedded_files();

// The bytes of the asset `name`. Throws std::logic_error when there is none: a name is
// always one of ui/assets/'s, so a missing one is a build that left it out.
std::string_view asset(std::string_view name);

// "text/html; charset=utf-8", "text/css; charset=utf-8", "text/javascript; charset=utf-8",
// "image/png": by the name's extension.
std::string_view media_type(std::string_view name);

}  // namespace retryproof::ui
