#include "ui/ui_assets.hpp"

#include <stdexcept>
#include <string>

namespace retryproof::ui {

std::string_view asset(std::string_view name) {
  for (const EmbeddedFile& file : embedded_files()) {
    if (file.name == name) return file.bytes;
  }
  throw std::logic_error("ui asset \"" + std::string(name) +
                         "\" was not built in: list it in ui/CMakeLists.txt");
}

std::string_view media_type(std::string_view name) {
  if (name.ends_with(".html")) return "text/html; charset=utf-8";
  if (name.ends_with(".css")) return "text/css; charset=utf-8";
  if (name.ends_with(".js")) return "text/javascript; charset=utf-8";
  if (name.ends_with(".png")) return "image/png";
  return "application/octet-stream";
}

}  // namespace retryproof::ui
