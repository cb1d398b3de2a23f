#include "provider/control_requests.hpp"

#include <strings.h>

#include <charconv>
#include <stdexcept>

#include "common/constant_time.hpp"
#include "common/duration.hpp"
#include "common/form_body.hpp"
#include "provider/json_body.hpp"

namespace retryproof::provider {
namespace {

// A parameter of a parsed query (form_body's parse: every value a string), as a number.
std::uint64_t query_number(const nlohmann::json& parameters, const std::string& name,
                           std::uint64_t low, std::uint64_t high, std::uint64_t otherwise) {
  const auto found = parameters.find(name);
  if (found == parameters.end()) return otherwise;
  const std::string text = found->is_string() ? found->get<std::string>() : std::string();
  std::uint64_t value = 0;
  const auto [end, problem] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || problem != std::errc() || end != text.data() + text.size() || value < low ||
      value > high) {
    throw std::invalid_argument("\"" + name + "\" must be a whole number from " +
                                std::to_string(low) + " to " + std::to_string(high));
  }
  return value;
}

}  // namespace

JournalPageQuery read_journal_query(std::string_view query) {
  const nlohmann::json parameters = parse_form_body(query);
  for (const auto& [name, unused] : parameters.items()) {
    if (name != "after" && name != "limit")
      throw std::invalid_argument("unknown parameter \"" + name + "\"; expected after, limit");
  }
  return {.after = query_number(parameters, "after", 0, UINT64_MAX, 0),
          .limit = query_number(parameters, "limit", 1, kMaxJournalPage, 0)};
}

bool carries_bearer_token(const Headers& headers, const std::string& token) {
  const auto authorization = headers.find("Authorization");
  if (authorization == headers.end()) return false;
  const std::string& value = authorization->second;
  return value.size() > 7 && strncasecmp(value.c_str(), "Bearer ", 7) == 0 &&
         equal_in_constant_time(std::string_view(value).substr(7), token);
}

std::optional<TokenProblem> token_problem(const Headers& headers, const std::string& token) {
  if (carries_bearer_token(headers, token)) return std::nullopt;
  const auto authorization = headers.find("Authorization");
  if (authorization == headers.end()) return TokenProblem::missing;
  const std::string& value = authorization->second;
  if (value.size() <= 7 || strncasecmp(value.c_str(), "Bearer ", 7) != 0)
    return TokenProblem::not_bearer;
  return TokenProblem::wrong;
}

std::string token_problem_detail(TokenProblem problem) {
  constexpr std::string_view kFix =
      "send Authorization: Bearer <control token>, the token the server was started with "
      "(--control-token, --control-token-file or RETRYPROOF_CONTROL_TOKEN)";
  switch (problem) {
    case TokenProblem::missing:
      return "the control token is missing: " + std::string(kFix);
    case TokenProblem::not_bearer:
      return "the control token is missing: the Authorization header is not a Bearer token; " +
             std::string(kFix);
    case TokenProblem::wrong:
      return "the control token is wrong: it is not the one this server was started with; " +
             std::string(kFix);
  }
  return std::string(kFix);
}

std::string token_challenge(TokenProblem problem) {
  return problem == TokenProblem::missing ? "Bearer" : "Bearer error=\"invalid_token\"";
}

std::optional<std::uint64_t> read_reset_body(const std::string& body) {
  std::optional<std::uint64_t> seed;
  const nlohmann::json options = parse_object_body(body);
  for (const auto& [field, value] : options.items()) {
    if (field != "seed") throw std::invalid_argument("unknown field \"" + field + "\"");
    if (!value.is_number_unsigned()) {
      throw std::invalid_argument("\"seed\" must be a non-negative integer");
    }
    seed = value.get<std::uint64_t>();
  }
  return seed;
}

Millis read_clock_body(const std::string& body) {
  const nlohmann::json options = parse_object_body(body);
  for (const auto& [field, value] : options.items()) {
    if (field != "advance") throw std::invalid_argument("unknown field \"" + field + "\"");
  }
  if (!options.contains("advance") || !options["advance"].is_string()) {
    throw std::invalid_argument("expected {\"advance\": \"<duration>\"}, such as \"25h\"");
  }
  return parse_duration(options["advance"].get<std::string>());
}

}  // namespace retryproof::provider
