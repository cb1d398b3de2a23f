#include "scenarios/model/client_policy.hpp"

#include <charconv>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "common/duration.hpp"
#include "common/suggest.hpp"
#include "scenarios/model/scenario.hpp"

namespace retryproof::scenarios {
namespace {

const std::vector<std::string> kKeys = {
    "attempts",         "min-backoff", "max-backoff",  "timeout", "on-ambiguous",
    "follows-settings", "payload",     "retry-budget", "breaker", "jitter-after-retry-after"};

// "attempts, min-backoff, ... and jitter-after-retry-after"
std::string key_list() {
  std::string list;
  for (std::size_t i = 0; i < kKeys.size(); ++i)
    list += (i == 0 ? "" : i + 1 == kKeys.size() ? " and " : ", ") + kKeys[i];
  return list;
}

[[noreturn]] void refuse(const std::string& what) {
  throw std::invalid_argument(what);
}

int parse_attempts(std::string_view text) {
  int attempts = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), attempts);
  if (error != std::errc{} || end != text.data() + text.size() || attempts < 1 || attempts > 1000) {
    refuse("attempts=" + std::string(text) +
           ": a whole number from 1 to 1000, counting the first request (urllib3's total=3 "
           "and cockatiel's maxAttempts: 3 make 4)");
  }
  return attempts;
}

OnAmbiguous parse_on_ambiguous(std::string_view text) {
  if (text == "lookup-first") return OnAmbiguous::lookup_first;
  if (text == "same-key-retry") return OnAmbiguous::same_key_retry;
  refuse("on-ambiguous=" + std::string(text) + ": lookup-first or same-key-retry" +
         did_you_mean(text, {"lookup-first", "same-key-retry"}));
}

// payload=verbatim: the client sends the operation's payload as its create's body, as the
// reference client and the project's examples do; payload=mapped (the default): it maps the
// payload to its API's own body, as an SDK does, so only what it sent is compared.
bool parse_payload_form(std::string_view text) {
  if (text == "verbatim") return true;
  if (text == "mapped") return false;
  refuse("payload=" + std::string(text) + ": verbatim or mapped" +
         did_you_mean(text, {"verbatim", "mapped"}));
}

bool parse_yes_no(std::string_view key, std::string_view text) {
  if (text == "yes" || text == "true") return true;
  if (text == "no" || text == "false") return false;
  refuse(std::string(key) + "=" + std::string(text) + ": yes or no");
}

// retry-budget=10%: retries are at most this share of a client's requests, as Finagle's,
// Envoy's (20%) and the SRE book's (10%) budgets bound them; in an outage a fleet then sends
// about 1.1 requests per operation where three attempts each would send three.
double parse_retry_share(std::string_view text);

// "20%/100": and a full bucket holds this many retries (boto3's standard mode: a quota of 500
// tokens at 5 a retry), where retryproof assumes 10.
void parse_retry_budget(std::string_view text, ClientPolicy& policy) {
  const std::size_t slash = text.find('/');
  if (slash != std::string_view::npos) {
    const std::string_view burst = text.substr(slash + 1);
    int retries = 0;
    const auto [end, error] = std::from_chars(burst.data(), burst.data() + burst.size(), retries);
    if (error != std::errc{} || end != burst.data() + burst.size() || retries < 1 ||
        retries > 100000) {
      refuse("retry-budget=" + std::string(text) +
             ": after the share, /N says how many retries a full bucket holds, from 1 to "
             "100000, such as 20%/100");
    }
    policy.retry_burst = retries;
  }
  policy.retry_budget = parse_retry_share(text.substr(0, slash));
}

double parse_retry_share(std::string_view text) {
  int percent = -1;
  const bool has_sign = text.ends_with('%');
  const std::string_view digits = has_sign ? text.substr(0, text.size() - 1) : text;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), percent);
  if (!has_sign || error != std::errc{} || end != digits.data() + digits.size() || percent < 0 ||
      percent > 1000) {
    refuse("retry-budget=" + std::string(text) +
           ": a share of requests from 0% to 1000%, such as 10% (retries at most a tenth of "
           "the requests)");
  }
  return percent / 100.0;
}

Millis parse_declared_duration(std::string_view key, std::string_view text) {
  try {
    return parse_duration(text);
  } catch (const std::invalid_argument& error) {
    refuse(std::string(key) + "=" + std::string(text) + ": " + error.what());
  }
}

}  // namespace

std::string to_string(OnAmbiguous policy) {
  return policy == OnAmbiguous::lookup_first ? "lookup-first" : "same-key-retry";
}

ClientPolicy ClientPolicy::over(const ClientPolicy& base) const {
  return {attempts ? attempts : base.attempts,
          min_backoff ? min_backoff : base.min_backoff,
          max_backoff ? max_backoff : base.max_backoff,
          timeout ? timeout : base.timeout,
          on_ambiguous ? on_ambiguous : base.on_ambiguous,
          follows_settings ? follows_settings : base.follows_settings,
          payload_verbatim ? payload_verbatim : base.payload_verbatim,
          retry_budget ? retry_budget : base.retry_budget,
          retry_budget ? retry_burst : base.retry_burst,
          breaker ? breaker : base.breaker,
          jitter_after_retry_after ? jitter_after_retry_after : base.jitter_after_retry_after};
}

std::string ClientPolicy::describe() const {
  std::vector<std::string> parts;
  if (attempts) parts.push_back("attempts=" + std::to_string(*attempts));
  if (min_backoff) parts.push_back("min-backoff=" + format_duration(*min_backoff));
  if (max_backoff) parts.push_back("max-backoff=" + format_duration(*max_backoff));
  if (timeout) parts.push_back("timeout=" + format_duration(*timeout));
  if (on_ambiguous) parts.push_back("on-ambiguous=" + to_string(*on_ambiguous));
  if (follows_settings)
    parts.push_back(std::string("follows-settings=") + (*follows_settings ? "yes" : "no"));
  if (payload_verbatim)
    parts.push_back(std::string("payload=") + (*payload_verbatim ? "verbatim" : "mapped"));
  if (retry_budget) {
    parts.push_back("retry-budget=" + std::to_string(std::lround(*retry_budget * 100)) + "%" +
                    (retry_burst ? "/" + std::to_string(std::lround(*retry_burst)) : ""));
  }
  if (breaker) parts.push_back("breaker=" + breaker->describe());
  if (jitter_after_retry_after) {
    parts.push_back(std::string("jitter-after-retry-after=") +
                    (*jitter_after_retry_after ? "yes" : "no"));
  }
  std::string text;
  for (const auto& part : parts)
    text += (text.empty() ? "" : ",") + part;
  return text;
}

ClientPolicy parse_client_policy(std::string_view text) {
  ClientPolicy policy;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string_view pair = text.substr(start, comma - start);
    start = comma + 1;
    if (pair.empty()) {
      if (comma == text.size()) break;
      refuse("an empty entry between commas");
    }
    const std::size_t equals = pair.find('=');
    const std::string_view key = pair.substr(0, equals);
    const bool has_value = equals != std::string_view::npos;
    const std::string_view value = has_value ? pair.substr(equals + 1) : std::string_view{};
    if (key == "follows-settings") {
      policy.follows_settings = has_value ? parse_yes_no(key, value) : true;
      continue;
    }
    if (key == "jitter-after-retry-after") {
      policy.jitter_after_retry_after = has_value ? parse_yes_no(key, value) : true;
      continue;
    }
    if (std::find(kKeys.begin(), kKeys.end(), key) == kKeys.end()) {
      refuse("unknown key \"" + std::string(key) + "\"" + did_you_mean(key, kKeys) +
             "; the keys are " + key_list());
    }
    if (!has_value || value.empty())
      refuse(std::string(key) + " needs a value: " + std::string(key) + "=...");
    if (key == "attempts") policy.attempts = parse_attempts(value);
    if (key == "min-backoff") policy.min_backoff = parse_declared_duration(key, value);
    if (key == "max-backoff") policy.max_backoff = parse_declared_duration(key, value);
    if (key == "timeout") policy.timeout = parse_declared_duration(key, value);
    if (key == "on-ambiguous") policy.on_ambiguous = parse_on_ambiguous(value);
    if (key == "payload") policy.payload_verbatim = parse_payload_form(value);
    if (key == "retry-budget") parse_retry_budget(value, policy);
    if (key == "breaker") policy.breaker = client::parse_breaker(value);
  }
  return policy;
}

ClientPolicy client_policy_from(const JsonNode& node) {
  node.object({"attempts", "minBackoff", "maxBackoff", "timeout", "onAmbiguous", "followsSettings",
               "payload", "retryBudget", "breaker", "jitterAfterRetryAfter"});
  ClientPolicy policy;
  if (node.has("attempts")) policy.attempts = node.field("attempts").integer(1, 1000);
  if (node.has("minBackoff")) policy.min_backoff = node.field("minBackoff").duration();
  if (node.has("maxBackoff")) policy.max_backoff = node.field("maxBackoff").duration();
  if (node.has("timeout")) policy.timeout = node.field("timeout").duration();
  if (node.has("onAmbiguous")) {
    const JsonNode field = node.field("onAmbiguous");
    try {
      policy.on_ambiguous = parse_on_ambiguous(field.string());
    } catch (const std::invalid_argument& error) {
      field.fail(error.what());
    }
  }
  if (node.has("followsSettings")) {
    const JsonNode field = node.field("followsSettings");
    if (!field.value.is_boolean()) field.fail("expected true or false");
    policy.follows_settings = field.value.get<bool>();
  }
  if (node.has("payload")) {
    const JsonNode field = node.field("payload");
    try {
      policy.payload_verbatim = parse_payload_form(field.string());
    } catch (const std::invalid_argument& error) {
      field.fail(error.what());
    }
  }
  if (node.has("jitterAfterRetryAfter")) {
    const JsonNode field = node.field("jitterAfterRetryAfter");
    if (!field.value.is_boolean()) field.fail("expected true or false");
    policy.jitter_after_retry_after = field.value.get<bool>();
  }
  if (node.has("breaker")) {
    const JsonNode field = node.field("breaker");
    try {
      policy.breaker = client::parse_breaker(field.string());
    } catch (const std::invalid_argument& error) {
      field.fail(error.what());
    }
  }
  if (node.has("retryBudget")) {
    const JsonNode field = node.field("retryBudget");
    try {
      parse_retry_budget(field.string(), policy);
    } catch (const std::invalid_argument& error) {
      field.fail(error.what());
    }
  }
  return policy;
}

std::string JudgedPolicy::attempts_text() const {
  if (declared_attempts) return std::to_string(attempts) + " (declared)";
  if (!from_scenario) {
    return std::to_string(attempts) +
           " (the default; if the service makes more by design, declare it: " + declare_with +
           "attempts=N)";
  }
  if (follows_settings)
    return std::to_string(attempts) +
           " (the scenario's client.attempts, which this client follows)";
  return std::to_string(attempts) +
         " (the scenario's client.attempts, given to the client in RETRYPROOF_CLIENT; if it "
         "makes more by design, declare it: " +
         declare_with + "attempts=N)";
}

std::string JudgedPolicy::min_backoff_text() const {
  const std::string floor = std::to_string(min_backoff.count()) + " ms";
  if (declared_min_backoff) return floor + " (declared)";
  if (!from_scenario) {
    return floor +
           " (the default floor; if the service promises another, declare it: " + declare_with +
           "min-backoff=DURATION)";
  }
  if (follows_settings) return floor + " (the scenario's floor, half its client.baseDelay)";
  return floor +
         " (the floor for a client that declares none and does not follow the scenario's "
         "settings; if your client promises another, declare it: " +
         declare_with + "min-backoff=DURATION)";
}

JudgedPolicy judged_policy(const Scenario& scenario, const ClientPolicy& declared) {
  const ClientPolicy policy = declared.over(scenario.client_policy);
  JudgedPolicy judged;
  judged.attempts = policy.attempts.value_or(scenario.settings.attempts);
  judged.follows_settings = policy.follows_settings.value_or(false);
  // A client that neither declares a floor nor follows the scenario's settings is judged by
  // one floor wherever it runs: a storm's longer steps are only its settings' business.
  judged.min_backoff = policy.min_backoff.value_or(
      judged.follows_settings ? scenario.min_gap : std::min(scenario.min_gap, kUndeclaredFloor));
  judged.max_backoff = policy.max_backoff.value_or(scenario.settings.max_delay);
  judged.timeout = policy.timeout.value_or(scenario.settings.timeout);
  judged.on_ambiguous = policy.on_ambiguous.value_or(OnAmbiguous::lookup_first);
  judged.payload_verbatim = policy.payload_verbatim.value_or(false);
  judged.declared_attempts = policy.attempts.has_value();
  judged.declared_min_backoff = policy.min_backoff.has_value();
  judged.declared_timeout = policy.timeout.has_value();
  judged.declared_on_ambiguous = policy.on_ambiguous.has_value();
  judged.retry_budget = policy.retry_budget;
  judged.retry_burst = policy.retry_burst.value_or(kRetryBudgetBurst);
  judged.breaker = policy.breaker;
  judged.jitter_after_retry_after = policy.jitter_after_retry_after.value_or(false);
  return judged;
}

}  // namespace retryproof::scenarios
