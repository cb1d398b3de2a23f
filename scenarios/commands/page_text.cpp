#include "scenarios/commands/page_text.hpp"

#include <array>
#include <cctype>
#include <utility>

namespace retryproof::scenarios {
namespace {

// Elements whose end starts a new line of text.
constexpr std::array<std::string_view, 21> kBlocks = {
    "p",       "div",        "li",     "tr",      "h1", "h2",      "h3",
    "h4",      "dt",         "dd",     "section", "ul", "ol",      "table",
    "caption", "figcaption", "header", "main",    "br", "summary", "form"};

// Elements whose content is not text a reader sees.
constexpr std::array<std::string_view, 3> kHidden = {"script", "style", "template"};

constexpr std::array<std::pair<std::string_view, std::string_view>, 6> kEntities = {
    {{"&amp;", "&"},
     {"&lt;", "<"},
     {"&gt;", ">"},
     {"&quot;", "\""},
     {"&#39;", "'"},
     {"&nbsp;", " "}}};

template <std::size_t N>
bool listed(const std::array<std::string_view, N>& names, std::string_view name) {
  for (const std::string_view known : names) {
    if (known == name) return true;
  }
  return false;
}

// The lower-case name of the tag that starts at `tag` ("<td class=x>" -> "td").
std::string tag_name(std::string_view tag) {
  std::string name;
  for (std::size_t i = tag.starts_with("</") ? 2 : 1; i < tag.size(); ++i) {
    const char c = tag[i];
    if (!std::isalnum(static_cast<unsigned char>(c))) break;
    name.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  return name;
}

// Where the tag that starts at `at` ends: its '>', past quoted attribute values, which may
// hold '>' (Chromium writes a hostile key <script>… into data-operation as it is).
std::size_t tag_end(std::string_view html, std::size_t at) {
  char quote = 0;
  for (std::size_t i = at + 1; i < html.size(); ++i) {
    const char c = html[i];
    if (quote != 0) {
      if (c == quote) quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '>') {
      return i;
    }
  }
  return std::string_view::npos;
}

class TextBuilder {
 public:
  void word_break() { pending_space_ = !text_.empty() && text_.back() != '\n'; }
  void line_break() {
    pending_space_ = false;
    if (!text_.empty() && text_.back() != '\n') text_.push_back('\n');
  }
  void add(char c) {
    if (std::isspace(static_cast<unsigned char>(c))) return word_break();
    if (pending_space_) text_.push_back(' ');
    pending_space_ = false;
    text_.push_back(c);
  }
  void add(std::string_view s) {
    for (const char c : s)
      add(c);
  }
  std::string take() {
    line_break();
    return std::move(text_);
  }

 private:
  std::string text_;
  bool pending_space_ = false;
};

}  // namespace

std::string page_text(std::string_view html) {
  TextBuilder text;
  std::size_t at = 0;
  while (at < html.size()) {
    if (html[at] == '<') {
      const std::size_t end = tag_end(html, at);
      if (end == std::string_view::npos) break;
      const std::string_view tag = html.substr(at, end - at + 1);
      const std::string name = tag_name(tag);
      at = end + 1;
      if (!tag.starts_with("</") && listed(kHidden, name)) {
        const std::size_t close = html.find("</" + name, at);
        at = close == std::string_view::npos ? html.size() : close;
        continue;
      }
      if (listed(kBlocks, name))
        text.line_break();
      else
        text.word_break();
      continue;
    }
    if (html[at] == '&') {
      bool decoded = false;
      for (const auto& [entity, character] : kEntities) {
        if (html.substr(at).starts_with(entity)) {
          text.add(character);
          at += entity.size();
          decoded = true;
          break;
        }
      }
      if (decoded) continue;
    }
    text.add(html[at]);
    ++at;
  }
  return text.take();
}

}  // namespace retryproof::scenarios
