// Text as each report format needs it. Clients write what they like to standard error, and
// keys come from clients, so every string that reaches a report is treated as untrusted
// bytes: made valid UTF-8, and escaped for the place it goes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace retryproof::scenarios::reports {

// The same JSON with every string (and key) made valid UTF-8, so that dump() cannot throw.
nlohmann::json clean_json(const nlohmann::json& value);

bool is_control(std::uint32_t code_point);

// One line for a terminal: no escape sequences or other control characters a client could
// use to repaint the screen; tabs and line breaks become spaces.
std::string terminal_text(std::string_view text);

// Columns on a terminal, counting code points (valid UTF-8 assumed).
std::size_t display_width(std::string_view text);

enum class XmlPlace { text, attribute };
// XML 1.0: the five special characters as entities, the control characters it forbids (and
// U+FFFE, U+FFFF) dropped. In attributes, tabs and line breaks become character references
// so that attribute normalisation keeps them.
std::string xml_escape(std::string_view text, XmlPlace place);

// Markdown text, also inside a table cell: one line, the characters Markdown gives a
// meaning escaped, HTML's specials as entities.
std::string markdown_text(std::string_view text);

// A Markdown code span around `text`, with a fence longer than any run of backticks in it.
std::string code_span(std::string_view text);

// Text of a Mermaid message or note: entity codes for what its parser reads as syntax (;
// ends a statement, # starts an entity, < and > become HTML) and no line breaks.
std::string mermaid_text(std::string_view text);

std::string join(const std::vector<std::string>& parts, std::string_view separator);
std::vector<std::string> split_lines(std::string_view text);

// "1 scenario", "2 scenarios": a count and its noun, plural when it is not one (regular
// nouns only).
std::string count_of(std::size_t count, std::string_view noun);

// The last `count` lines of `lines` (all of them when there are fewer).
std::vector<std::string> last(std::vector<std::string> lines, std::size_t count);

// Quoted for a command line a person pastes into a POSIX shell (plain words stay bare).
std::string shell_quote(std::string_view text);

}  // namespace retryproof::scenarios::reports
