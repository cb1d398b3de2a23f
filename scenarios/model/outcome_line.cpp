#include "scenarios/model/outcome_line.hpp"

#include <array>
#include <sstream>
#include <utility>

namespace retryproof::scenarios {
namespace {

constexpr std::array<std::pair<Reported, std::string_view>, 3> kNames{{
    {Reported::succeeded, "succeeded"},
    {Reported::failed, "failed"},
    {Reported::unknown, "unknown"},
}};

bool blank(const std::string& line) {
  return line.find_first_not_of(" \t\r") == std::string::npos;
}

OutcomeReading check(const nlohmann::json& parsed, const std::string& quoted) {
  if (!parsed.is_object())
    return {std::nullopt, "printed " + quoted + ", which is not a JSON object"};
  const auto outcome = parsed.contains("outcome") && parsed["outcome"].is_string()
                           ? parse_reported(parsed["outcome"].get<std::string>())
                           : std::nullopt;
  if (!outcome) {
    return {std::nullopt,
            "printed " + quoted + ": \"outcome\" must be succeeded, failed or unknown"};
  }
  OutcomeLine line{*outcome, {}, parsed};
  if (*outcome == Reported::succeeded) {
    if (!parsed.contains("jobId") || !parsed["jobId"].is_string()) {
      return {std::nullopt, "printed " + quoted + ": a succeeded outcome names its \"jobId\""};
    }
    line.job_id = parsed["jobId"].get<std::string>();
  }
  return {std::move(line), {}};
}

}  // namespace

std::string to_string(Reported outcome) {
  for (const auto& [known, name] : kNames) {
    if (known == outcome) return std::string(name);
  }
  return "unknown";
}

std::optional<Reported> parse_reported(std::string_view text) {
  for (const auto& [outcome, name] : kNames) {
    if (name == text) return outcome;
  }
  return std::nullopt;
}

OutcomeReading read_outcome_line(const std::string& standard_output) {
  // The last line that is a JSON object: a client (or a library it uses) may print other
  // lines before its final word.
  std::istringstream lines(standard_output);
  std::string line;
  std::string last_printed;
  std::optional<std::string> last_object;
  while (std::getline(lines, line)) {
    if (blank(line)) continue;
    last_printed = line;
    if (nlohmann::json::parse(line, nullptr, false).is_object()) last_object = line;
  }
  if (last_printed.empty()) return {std::nullopt, "printed no outcome line"};
  const std::string& chosen = last_object.value_or(last_printed);
  return check(nlohmann::json::parse(chosen, nullptr, false), "\"" + chosen.substr(0, 200) + "\"");
}

OutcomeReading outcome_line_of(const nlohmann::json& object) {
  return check(object, object.dump().substr(0, 200));
}

}  // namespace retryproof::scenarios
