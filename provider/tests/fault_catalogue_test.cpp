// The fault catalogue: every name, its parameter, how it is written back, and how a
// mistake is reported.
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "provider/fault.hpp"
#include "provider/http_types.hpp"

namespace retryproof::provider {
namespace {

// The message of the std::invalid_argument that parse_fault throws, or a failure.
std::string parse_fault_error(const std::string& text) {
  try {
    const Fault parsed = parse_fault(text);
    ADD_FAILURE() << "parse_fault accepted \"" << text << "\" as " << to_string(parsed);
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
  return {};
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

struct CatalogueEntry {
  std::string text;
  Fault fault;
};

const std::vector<CatalogueEntry>& every_entry() {
  static const std::vector<CatalogueEntry> cases = {
      {"none", Fault{FaultKind::none}},
      {"fail-before-commit", Fault{FaultKind::fail_before_commit}},
      {"commit-then-error", Fault{FaultKind::commit_then_error}},
      {"commit-then-drop", Fault{FaultKind::commit_then_drop}},
      {"commit-then-reset", Fault{FaultKind::commit_then_reset}},
      {"drop-before-commit", Fault{FaultKind::drop_before_commit}},
      {"commit-then-delay:250ms", Fault{FaultKind::commit_then_delay, Millis{250}}},
      {"delay-before-commit:3s", Fault{FaultKind::delay_before_commit, Millis{3'000}}},
      {"rate-limited", Fault{FaultKind::rate_limited, Millis{0}, 1}},
      {"rate-limited:5", Fault{FaultKind::rate_limited, Millis{0}, 5}},
      {"commit-then-truncate", Fault{FaultKind::commit_then_truncate}},
      {"commit-then-500", Fault{FaultKind::commit_then_500}},
      {"lookup-unavailable", Fault{FaultKind::lookup_unavailable}},
      {"reset-before-commit", Fault{FaultKind::reset_before_commit}},
  };
  return cases;
}

TEST(FaultCatalogue, ParsesEveryEntryWithItsParameter) {
  for (const auto& c : every_entry()) {
    SCOPED_TRACE(c.text);
    EXPECT_EQ(parse_fault(c.text), c.fault);
  }
}

TEST(FaultCatalogue, ToStringWritesEveryEntryAsParsed) {
  for (const auto& c : every_entry()) {
    SCOPED_TRACE(c.text);
    EXPECT_EQ(to_string(c.fault), c.text);
    EXPECT_EQ(to_string(parse_fault(c.text)), c.text);
  }
}

TEST(FaultCatalogue, ParametersAreReadExactly) {
  const Fault delay = parse_fault("commit-then-delay:250ms");
  EXPECT_EQ(delay.kind, FaultKind::commit_then_delay);
  EXPECT_EQ(delay.duration, Millis{250});

  const Fault held = parse_fault("delay-before-commit:3s");
  EXPECT_EQ(held.kind, FaultKind::delay_before_commit);
  EXPECT_EQ(held.duration, Millis{3'000});

  EXPECT_EQ(parse_fault("rate-limited").retry_after_seconds, 1);
  EXPECT_EQ(parse_fault("rate-limited:5").retry_after_seconds, 5);
  EXPECT_EQ(parse_fault("rate-limited:0").retry_after_seconds, 0);
  EXPECT_EQ(parse_fault("rate-limited:86400").retry_after_seconds, 86400);
}

TEST(FaultCatalogue, ParametersAreWrittenInCanonicalForm) {
  // Durations in the largest exact unit; the default Retry-After is left out.
  EXPECT_EQ(to_string(parse_fault("commit-then-delay:120000ms")), "commit-then-delay:2m");
  EXPECT_EQ(to_string(parse_fault("delay-before-commit:1500ms")), "delay-before-commit:1500ms");
  EXPECT_EQ(to_string(parse_fault("commit-then-delay:0s")), "commit-then-delay:0ms");
  EXPECT_EQ(to_string(parse_fault("rate-limited:1")), "rate-limited");
  EXPECT_EQ(to_string(parse_fault("rate-limited:0")), "rate-limited:0");
}

TEST(FaultCatalogue, DurationFaultWithoutADurationIsRefused) {
  for (const std::string name : {"commit-then-delay", "delay-before-commit"}) {
    SCOPED_TRACE(name);
    const std::string message = parse_fault_error(name);
    EXPECT_EQ(message, "\"" + name + "\" needs a duration, such as " + name + ":2s");
  }
}

TEST(FaultCatalogue, BadDurationIsRefusedNamingIt) {
  const std::string message = parse_fault_error("commit-then-delay:abc");
  EXPECT_TRUE(contains(message, "\"commit-then-delay:abc\"")) << message;
  EXPECT_TRUE(contains(message, "bad duration \"abc\"")) << message;

  for (const std::string text :
       {"commit-then-delay:", "delay-before-commit:3", "commit-then-delay:3d",
        "delay-before-commit:-1s", "commit-then-delay:1.5s"}) {
    SCOPED_TRACE(text);
    const std::string refused = parse_fault_error(text);
    EXPECT_TRUE(contains(refused, "\"" + text + "\"")) << refused;
    EXPECT_TRUE(contains(refused, "bad duration")) << refused;
  }
}

TEST(FaultCatalogue, BadRetryAfterIsRefused) {
  for (const std::string text :
       {"rate-limited:-1", "rate-limited:x", "rate-limited:", "rate-limited:1.5",
        "rate-limited:86401", "rate-limited:5s", "rate-limited:99999999999"}) {
    SCOPED_TRACE(text);
    const std::string message = parse_fault_error(text);
    EXPECT_EQ(message,
              "\"" + text + "\": Retry-After is a whole number of seconds from 0 to 86400");
  }
}

TEST(FaultCatalogue, FaultsWithoutAParameterRefuseOne) {
  EXPECT_EQ(parse_fault_error("none:3"), "\"none:3\": none takes no parameter");
  for (const std::string name : {"fail-before-commit", "commit-then-error", "commit-then-drop",
                                 "commit-then-reset", "drop-before-commit", "commit-then-truncate",
                                 "commit-then-500", "lookup-unavailable", "reset-before-commit"}) {
    SCOPED_TRACE(name);
    EXPECT_EQ(parse_fault_error(name + ":1s"),
              "\"" + name + ":1s\": " + name + " takes no parameter");
    EXPECT_EQ(parse_fault_error(name + ":"), "\"" + name + ":\": " + name + " takes no parameter");
  }
}

TEST(FaultCatalogue, UnknownNameListsTheCatalogue) {
  const std::string catalogue =
      "known faults: none, fail-before-commit, commit-then-error, commit-then-drop, "
      "commit-then-reset, drop-before-commit, commit-then-truncate, commit-then-500, "
      "rate-limited[:<seconds>], lookup-unavailable, commit-then-delay:<duration>, "
      "delay-before-commit:<duration>, reset-before-commit";
  EXPECT_EQ(parse_fault_error("explode"), "unknown fault \"explode\"; " + catalogue);
  EXPECT_EQ(
      parse_fault_error("commit-then-delay-2s"),
      "unknown fault \"commit-then-delay-2s\" (did you mean \"commit-then-delay\"?); " + catalogue);
  EXPECT_EQ(parse_fault_error("Rate-Limited:5"),
            "unknown fault \"Rate-Limited:5\" (did you mean \"rate-limited\"?); " + catalogue);
  EXPECT_EQ(parse_fault_error("comit-then-drop"),
            "unknown fault \"comit-then-drop\" (did you mean \"commit-then-drop\"?); " + catalogue);
  EXPECT_EQ(parse_fault_error(""), "unknown fault \"\"; " + catalogue);
  EXPECT_EQ(parse_fault_error(":2s"), "unknown fault \":2s\"; " + catalogue);
}

// ---- the table itself ---------------------------------------------------------------------

TEST(FaultCatalogue, EveryKindHasExactlyOneRowAndNoneComesFirst) {
  const auto& catalogue = fault_catalogue();
  ASSERT_FALSE(catalogue.empty());
  EXPECT_EQ(catalogue.front().kind, FaultKind::none);
  for (const FaultRow& row : catalogue) {
    SCOPED_TRACE(std::string(row.name));
    EXPECT_EQ(&row_of(row.kind), &row);
    EXPECT_EQ(std::count_if(catalogue.begin(), catalogue.end(),
                            [&](const FaultRow& other) { return other.name == row.name; }),
              1);
  }
}

TEST(FaultCatalogue, EveryRowIsCoherent) {
  for (const FaultRow& row : fault_catalogue()) {
    SCOPED_TRACE(std::string(row.name));
    // A fault that hides the outcome sends no whole definitive answer.
    if (row.hides == Hides::always) {
      EXPECT_TRUE(row.delivery != Delivery::respond || row.status == 500);
    }
    // A hold is what makes an outcome depend on the client's patience.
    EXPECT_EQ(row.hides == Hides::past_timeout, row.parameter == FaultParameter::hold);
    // Only a create can store a job.
    if (row.target == FaultTarget::lookup) {
      EXPECT_EQ(row.commit, Commit::never);
    }
    // An answer with a status other than the created job names its error code.
    if (row.status != 201 && row.status != 0) {
      EXPECT_FALSE(row.error_code.empty());
    }
    EXPECT_FALSE(row.client_sees.empty());
  }
}

TEST(FaultCatalogue, EverySpellingASchedulesMayDrawParsesToItsRow) {
  for (const FaultRow& row : fault_catalogue()) {
    ASSERT_FALSE(row.drawn_as.empty()) << row.name;
    for (const auto spelling : row.drawn_as) {
      SCOPED_TRACE(std::string(spelling));
      EXPECT_EQ(parse_fault(spelling).kind, row.kind);
    }
  }
}

TEST(FaultCatalogue, MenusAreNestedAndALargerMenuOnlyAppends) {
  const auto recoverable = faults_in(FaultMenu::recoverable);
  const auto instant = faults_in(FaultMenu::instant);
  const auto all = faults_in(FaultMenu::all);
  EXPECT_EQ(recoverable.front(), "none");  // what shrinking replaces a fault with
  ASSERT_LT(recoverable.size(), instant.size());
  ASSERT_LT(instant.size(), all.size());
  EXPECT_TRUE(std::equal(recoverable.begin(), recoverable.end(), instant.begin()));
  EXPECT_TRUE(std::equal(instant.begin(), instant.end(), all.begin()));
  // Schedules replay from their seed: the draw order is part of the contract.
  EXPECT_EQ(recoverable, (std::vector<std::string>{
                             "none", "fail-before-commit", "commit-then-error", "commit-then-drop",
                             "commit-then-reset", "drop-before-commit", "commit-then-truncate",
                             "commit-then-500", "rate-limited:0", "rate-limited:1"}));
  // A fault added since (reset-before-commit) went to the largest menu only.
  EXPECT_EQ(std::vector<std::string>(instant.begin() + recoverable.size(), instant.end()),
            std::vector<std::string>{"lookup-unavailable"});
  EXPECT_EQ(all.back(), "reset-before-commit");
}

}  // namespace
}  // namespace retryproof::provider
