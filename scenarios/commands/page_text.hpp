// The words of a page, from the DOM Chromium dumps (--dump-dom): what a reader sees, one
// block (a paragraph, a list item, a table row) per line, without markup, scripts or style.
// What `ui-snapshot --dump-text` writes, so that a test or a CI step can grep the page's words.
#pragma once

#include <string>
#include <string_view>

namespace retryproof::scenarios {

std::string page_text(std::string_view html);

}  // namespace retryproof::scenarios
