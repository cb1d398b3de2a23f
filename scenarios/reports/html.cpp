// The saved run's page: the live page's model, view and report code with its style, inlined
// in one file with the run's JSON, so that a CI artifact opens offline and shows what the
// live page would have.
#include <openssl/evp.h>

#include <array>
#include <ostream>
#include <string>
#include <string_view>

#include "scenarios/reports/reports.hpp"
#include "scenarios/reports/view.hpp"
#include "ui/ui_assets.hpp"

namespace retryproof::scenarios {
namespace {

// 'sha256-<base64>': how a Content-Security-Policy allows one inline script or style.
std::string csp_hash(std::string_view text) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int size = 0;
  EVP_Digest(text.data(), text.size(), digest.data(), &size, EVP_sha256(), nullptr);
  std::array<unsigned char, 4 * ((EVP_MAX_MD_SIZE + 2) / 3) + 1> encoded{};
  const int length = EVP_EncodeBlock(encoded.data(), digest.data(), static_cast<int>(size));
  return "'sha256-" + std::string(encoded.begin(), encoded.begin() + length) + "'";
}

// JSON inside <script type="application/json">: "</script>" or "<!--" in a key or a payload
// must not end or change the element. '<', '>' and '&' occur only inside JSON strings, where
// \u escapes mean the same characters; U+2028 and U+2029 are escaped for older parsers.
std::string json_for_script(const nlohmann::json& document) {
  const std::string text = document.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string escaped;
  escaped.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '<') {
      escaped += "\\u003c";
    } else if (c == '>') {
      escaped += "\\u003e";
    } else if (c == '&') {
      escaped += "\\u0026";
    } else if (text.compare(i, 3, "\xE2\x80\xA8") == 0 || text.compare(i, 3, "\xE2\x80\xA9") == 0) {
      escaped += text[i + 2] == '\xA8' ? "\\u2028" : "\\u2029";
      i += 2;
    } else {
      escaped += c;
    }
  }
  return escaped;
}

// The title's text, with what HTML would read as markup escaped.
std::string html_text(std::string_view text) {
  std::string escaped;
  for (const char c : text) {
    switch (c) {
      case '<':
        escaped += "&lt;";
        break;
      case '>':
        escaped += "&gt;";
        break;
      case '&':
        escaped += "&amp;";
        break;
      case '"':
        escaped += "&quot;";
        break;
      default:
        escaped += c;
    }
  }
  return escaped;
}

}  // namespace

void write_html(std::ostream& out, const RunSummary& run) {
  nlohmann::json document = to_json(run);
  document["subject"] = reports::run_subject(run);
  document["replay"] = reports::replay_command(run);
  const std::string style(ui::asset("ui.css"));
  const std::string script = std::string(ui::asset("model.js")) + "\n" +
                             std::string(ui::asset("view.js")) + "\n" +
                             std::string(ui::asset("report.js"));
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      << "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src "
      << csp_hash(script) << "; style-src " << csp_hash(style)
      << "; base-uri 'none'; form-action 'none'\">\n"
      << "<title>retryproof: " << html_text(reports::run_subject(run)) << "</title>\n"
      << "<style>" << style << "</style>\n</head>\n"
      << "<body class=\"report\">\n<main id=\"app\" aria-live=\"polite\"></main>\n"
      << "<script type=\"application/json\" id=\"retryproof-run\">" << json_for_script(document)
      << "</script>\n<script>" << script << "</script>\n</body>\n</html>\n";
}

}  // namespace retryproof::scenarios
