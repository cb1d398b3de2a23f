#include "provider/fault.hpp"

#include <algorithm>
#include <charconv>
#include <stdexcept>

#include "common/duration.hpp"
#include "common/suggest.hpp"

namespace retryproof::provider {
namespace {

constexpr std::string_view kUnavailable = "temporarily_unavailable";

}  // namespace

const std::vector<FaultRow>& fault_catalogue() {
  using enum FaultParameter;
  static const std::vector<FaultRow> catalogue = {
      {FaultKind::none,
       "none",
       none,
       FaultTarget::create,
       Commit::before_answer,
       201,
       {},
       {},
       Delivery::respond,
       Hides::never,
       "201 and the job",
       FaultMenu::recoverable,
       {"none"}},
      {FaultKind::fail_before_commit,
       "fail-before-commit",
       none,
       FaultTarget::create,
       Commit::never,
       503,
       kUnavailable,
       {},
       Delivery::respond,
       Hides::never,
       "503 temporarily_unavailable; nothing is stored",
       FaultMenu::recoverable,
       {"fail-before-commit"}},
      {FaultKind::commit_then_error,
       "commit-then-error",
       none,
       FaultTarget::create,
       Commit::before_answer,
       503,
       kUnavailable,
       {},
       Delivery::respond,
       Hides::never,
       "503 temporarily_unavailable, though the job is stored",
       FaultMenu::recoverable,
       {"commit-then-error"}},
      {FaultKind::commit_then_drop,
       "commit-then-drop",
       none,
       FaultTarget::create,
       Commit::before_answer,
       201,
       {},
       {},
       Delivery::drop,
       Hides::always,
       "the connection closes (FIN) without one byte of response; the job is stored",
       FaultMenu::recoverable,
       {"commit-then-drop"}},
      {FaultKind::commit_then_reset,
       "commit-then-reset",
       none,
       FaultTarget::create,
       Commit::before_answer,
       201,
       {},
       {},
       Delivery::reset,
       Hides::always,
       "the connection is reset (RST) without one byte of response; the job is stored",
       FaultMenu::recoverable,
       {"commit-then-reset"}},
      {FaultKind::drop_before_commit,
       "drop-before-commit",
       none,
       FaultTarget::create,
       Commit::never,
       0,
       {},
       {},
       Delivery::drop,
       Hides::always,
       "the connection closes (FIN) without a response, and nothing is stored",
       FaultMenu::recoverable,
       {"drop-before-commit"}},
      {FaultKind::commit_then_truncate,
       "commit-then-truncate",
       none,
       FaultTarget::create,
       Commit::before_answer,
       201,
       {},
       {},
       Delivery::truncate,
       Hides::always,
       "a 201 head promising the whole job, half of the body, then FIN; the job is stored",
       FaultMenu::recoverable,
       {"commit-then-truncate"}},
      {FaultKind::commit_then_500,
       "commit-then-500",
       none,
       FaultTarget::create,
       Commit::before_answer,
       500,
       "internal_error",
       {},
       Delivery::respond,
       Hides::always,
       "500 internal_error, though the job is stored",
       FaultMenu::recoverable,
       {"commit-then-500"}},
      {FaultKind::rate_limited,
       "rate-limited",
       retry_after,
       FaultTarget::create,
       Commit::never,
       429,
       "rate_limited",
       "slow down and retry after the Retry-After delay",
       Delivery::respond,
       Hides::never,
       "429 with Retry-After; nothing is stored",
       FaultMenu::recoverable,
       {"rate-limited:0", "rate-limited:1"}},
      {FaultKind::lookup_unavailable,
       "lookup-unavailable",
       none,
       FaultTarget::lookup,
       Commit::never,
       503,
       kUnavailable,
       {},
       Delivery::respond,
       Hides::never,
       "the next lookup by key gets 503, whatever is stored",
       FaultMenu::instant,
       {"lookup-unavailable"}},
      {FaultKind::commit_then_delay,
       "commit-then-delay",
       hold,
       FaultTarget::create,
       Commit::before_answer,
       201,
       {},
       {},
       Delivery::respond,
       Hides::past_timeout,
       "201, sent only after the hold; the job is stored at once",
       FaultMenu::all,
       {"commit-then-delay:200ms", "commit-then-delay:5s"}},
      {FaultKind::delay_before_commit,
       "delay-before-commit",
       hold,
       FaultTarget::create,
       Commit::after_hold,
       201,
       {},
       {},
       Delivery::respond,
       Hides::past_timeout,
       "held in flight for the hold (409 to the same key meanwhile), then stored and 201",
       FaultMenu::all,
       {"delay-before-commit:200ms", "delay-before-commit:5s"}},
      // Added last, to the largest menu only: the smaller menus, and the schedules drawn from
      // them by seed, stay as they were before it existed (a schedule drawn from `all` picks
      // by index over a longer list, so its seeds may draw differently).
      {FaultKind::reset_before_commit,
       "reset-before-commit",
       none,
       FaultTarget::create,
       Commit::never,
       0,
       {},
       {},
       Delivery::reset,
       Hides::always,
       "the connection is reset (RST) without a response, and nothing is stored",
       FaultMenu::all,
       {"reset-before-commit"}},
  };
  return catalogue;
}

const FaultRow& row_of(FaultKind kind) {
  const auto& catalogue = fault_catalogue();
  const auto row = std::find_if(catalogue.begin(), catalogue.end(),
                                [&](const FaultRow& candidate) { return candidate.kind == kind; });
  if (row == catalogue.end()) throw std::logic_error("a fault kind without a catalogue row");
  return *row;
}

std::string spelling(const FaultRow& row) {
  switch (row.parameter) {
    case FaultParameter::none:
      return std::string(row.name);
    case FaultParameter::hold:
      return std::string(row.name) + ":<duration>";
    case FaultParameter::retry_after:
      return std::string(row.name) + "[:<seconds>]";
  }
  return std::string(row.name);
}

std::string fault_names() {
  std::string names;
  for (const FaultRow& row : fault_catalogue())
    names += (names.empty() ? "" : ", ") + spelling(row);
  return names;
}

std::vector<std::string> faults_in(FaultMenu menu) {
  // Menu by menu, so that a larger menu only appends: a schedule drawn by index from a
  // seed stays the same schedule when faults are added to a larger menu.
  std::vector<std::string> spellings;
  for (const FaultMenu level : {FaultMenu::recoverable, FaultMenu::instant, FaultMenu::all}) {
    if (level > menu) break;
    for (const FaultRow& row : fault_catalogue()) {
      if (row.menu == level)
        spellings.insert(spellings.end(), row.drawn_as.begin(), row.drawn_as.end());
    }
  }
  return spellings;
}

std::string to_string(const Fault& fault) {
  const FaultRow& row = row_of(fault.kind);
  std::string name(row.name);
  if (row.parameter == FaultParameter::hold) name += ":" + format_duration(fault.duration);
  if (row.parameter == FaultParameter::retry_after && fault.retry_after_seconds != 1) {
    name += ":" + std::to_string(fault.retry_after_seconds);
  }
  return name;
}

namespace {

int parse_seconds(std::string_view text, std::string_view fault) {
  int seconds = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), seconds);
  if (error != std::errc{} || end != text.data() + text.size() || seconds < 0 || seconds > 86400) {
    throw std::invalid_argument("\"" + std::string(fault) +
                                "\": Retry-After is a whole number of seconds from 0 to 86400");
  }
  return seconds;
}

}  // namespace

Fault parse_fault(std::string_view text) {
  const auto colon = text.find(':');
  const std::string_view name = text.substr(0, colon);
  const auto& catalogue = fault_catalogue();
  const auto row = std::find_if(catalogue.begin(), catalogue.end(),
                                [&](const FaultRow& candidate) { return candidate.name == name; });
  if (row == catalogue.end()) {
    std::vector<std::string> names;
    for (const FaultRow& known : catalogue)
      names.emplace_back(known.name);
    throw std::invalid_argument("unknown fault \"" + std::string(text) + "\"" +
                                did_you_mean(name, names) + "; known faults: " + fault_names());
  }
  Fault fault{row->kind};
  const bool has_argument = colon != std::string_view::npos;
  const std::string_view argument = has_argument ? text.substr(colon + 1) : std::string_view{};
  const std::string quoted = "\"" + std::string(text) + "\"";
  switch (row->parameter) {
    case FaultParameter::none:
      if (has_argument)
        throw std::invalid_argument(quoted + ": " + std::string(name) + " takes no parameter");
      break;
    case FaultParameter::hold:
      if (!has_argument) {
        throw std::invalid_argument(quoted + " needs a duration, such as " + std::string(name) +
                                    ":2s");
      }
      try {
        fault.duration = parse_duration(argument);
      } catch (const std::invalid_argument& error) {
        throw std::invalid_argument(quoted + ": " + error.what());
      }
      break;
    case FaultParameter::retry_after:
      if (has_argument) fault.retry_after_seconds = parse_seconds(argument, text);
      break;
  }
  return fault;
}

}  // namespace retryproof::provider
