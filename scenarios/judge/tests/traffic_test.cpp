// judge_traffic on journals a real provider core wrote (no sockets): requests grouped into
// operations by the recorded business field, and the verdict table's traffic checkers.
#include "scenarios/judge/traffic.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "provider/provider_core.hpp"
#include "scenarios/evidence/verdicts.hpp"
#include "scenarios/judge/tests/orders.hpp"

namespace retryproof::scenarios {
namespace {

using judge_orders::kOrder1;
using judge_orders::kOrder2;
using nlohmann::json;
using provider::HttpRequest;
using provider::JournalEntry;
using provider::ProviderCore;

// A provider core that records orderId, and a clock the test moves.
class Traffic {
 public:
  explicit Traffic(std::vector<std::string> faults = {}, bool record_orders = true)
      : core_(config(faults, record_orders)) {}

  int create(const std::string& key, const json& payload, int after_ms = 100) {
    now_ += Millis(after_ms);
    HttpRequest request{.method = "POST", .path = "/jobs", .body = payload.dump()};
    if (!key.empty()) request.headers.emplace("Idempotency-Key", key);
    return core_.handle(request, now_).status;
  }
  int lookup(const std::string& key, int after_ms = 100) {
    now_ += Millis(after_ms);
    return core_.handle({.method = "GET", .path = "/jobs/by-idempotency-key/" + key}, now_).status;
  }
  void other(const std::string& path) { core_.handle({.method = "GET", .path = path}, now_); }
  std::vector<JournalEntry> journal() const { return core_.journal(); }

 private:
  static provider::ProviderConfig config(const std::vector<std::string>& faults, bool record) {
    provider::ProviderConfig config{.initial_plan =
                                        provider::FaultPlan::from_json({{"faults", faults}})};
    if (record) config.operation_field = "orderId";
    return config;
  }
  ProviderCore core_;
  Millis now_{0};
};

ScenarioResult judged(const std::vector<JournalEntry>& journal, const std::string& policy = "",
                      const std::string& field = "orderId") {
  return judge_traffic(journal,
                       {.operation_field = field, .declared = parse_client_policy(policy)});
}

const Verdict& verdict(const ScenarioResult& result, const std::string& id) {
  const auto found = std::find_if(result.verdicts.begin(), result.verdicts.end(),
                                  [&](const Verdict& v) { return v.id == id; });
  if (found == result.verdicts.end()) throw std::logic_error("not judged: " + id);
  return *found;
}

std::string verdicts_text(const ScenarioResult& result) {
  std::string text = result.description + "\n";
  for (const Verdict& v : result.verdicts)
    text += v.id + ": " + to_string(v.status) + " - " + v.explanation + "\n";
  return text;
}

TEST(JudgeTraffic, InterleavedOperationsAreEachJudgedByTheirOwnRequests) {
  Traffic traffic({"fail-before-commit", "fail-before-commit"});
  // Two orders at once, each failed once before commit and retried: their requests
  // alternate in the journal, as a concurrent service's do.
  traffic.create("k-1", kOrder1);
  traffic.create("k-2", kOrder2);
  traffic.create("k-1", kOrder1);
  traffic.create("k-2", kOrder2);

  const ScenarioResult result = judged(traffic.journal(), "attempts=2");
  ASSERT_EQ(result.invocations.size(), 2u);
  EXPECT_EQ(result.invocations[0].operation, "orderId=o-1");
  EXPECT_EQ(result.invocations[1].operation, "orderId=o-2");
  EXPECT_TRUE(result.met()) << verdicts_text(result);
  EXPECT_EQ(verdict(result, "attempt-budget").status, VerdictStatus::pass)
      << "two creates each, not the four of a window from the first to the last";
  EXPECT_NE(verdict(result, "backoff").explanation.find("waits: 200, 200 ms"), std::string::npos)
      << verdict(result, "backoff").explanation;
  EXPECT_EQ(result.jobs.size(), 2u);
}

TEST(JudgeTraffic, OperationsAreTheBusinessFieldNotTheKeysTheServiceChose) {
  Traffic traffic({"commit-then-drop"});
  traffic.create("attempt-1", kOrder1);  // dropped after the commit
  traffic.create("attempt-2", kOrder1);  // a second job

  const ScenarioResult by_order = judged(traffic.journal());
  EXPECT_FALSE(by_order.met());
  const Verdict& duplicate = verdict(by_order, "no-duplicate-effect");
  EXPECT_EQ(duplicate.status, VerdictStatus::fail);
  EXPECT_EQ(duplicate.severity, Severity::harm);
  EXPECT_EQ(duplicate.evidence, (std::vector<std::uint64_t>{1, 2}));
  EXPECT_NE(duplicate.explanation.find("operation orderId=o-1 has 2 jobs"), std::string::npos)
      << duplicate.explanation;
  EXPECT_EQ(verdict(by_order, "key-stability").status, VerdictStatus::fail);

  // Grouped by key, the same traffic looks clean: which is why the field matters.
  Traffic unrecorded({"commit-then-drop"}, false);
  unrecorded.create("attempt-1", kOrder1);
  unrecorded.create("attempt-2", kOrder1);
  const ScenarioResult keys = judged(unrecorded.journal(), "", "");
  EXPECT_TRUE(keys.met()) << verdicts_text(keys);
  EXPECT_EQ(keys.invocations.size(), 2u);
  EXPECT_EQ(keys.invocations[0].operation, "key=attempt-1");
  EXPECT_NE(keys.description.find("by idempotency key"), std::string::npos) << keys.description;
}

TEST(JudgeTraffic, ARequiredFieldTheJournalLacksIsAnErrorThatSaysHowToRecordIt) {
  Traffic unrecorded({}, false);
  unrecorded.create("k-1", kOrder1);
  try {
    judge_traffic(unrecorded.journal(), {.operation_field = "orderId", .require_operations = true});
    FAIL() << "nothing recorded orderId";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("start the provider with --operation-field orderId"),
              std::string::npos)
        << error.what();
  }
}

TEST(JudgeTraffic, ALookupBelongsToItsKeysOperationEvenBeforeTheFirstCreate) {
  Traffic traffic({"commit-then-drop"});
  EXPECT_EQ(traffic.lookup("k-1"), 404);  // a service that asks before it sends
  traffic.create("k-1", kOrder1);         // dropped after the commit
  EXPECT_EQ(traffic.lookup("k-1"), 200);

  const ScenarioResult result = judged(traffic.journal());
  ASSERT_EQ(result.invocations.size(), 1u);
  EXPECT_EQ(result.invocations[0].first_seq, 1u);
  EXPECT_EQ(result.invocations[0].last_seq, 3u);
  EXPECT_EQ(verdict(result, "fail-closed").status, VerdictStatus::pass) << verdicts_text(result);
}

TEST(JudgeTraffic, AResendAfterADropIsFailClosedsUnlessTheServiceDeclaresSameKeyRetry) {
  Traffic traffic({"commit-then-drop"});
  traffic.create("k-1", kOrder1);
  traffic.create("k-1", kOrder1);  // a replay: harmless here, but not lookup-first

  const ScenarioResult result = judged(traffic.journal());
  const Verdict& lookup_first = verdict(result, "fail-closed");
  EXPECT_EQ(lookup_first.status, VerdictStatus::fail);
  EXPECT_EQ(lookup_first.evidence, (std::vector<std::uint64_t>{1, 2}));
  EXPECT_EQ(verdict(judged(traffic.journal(), "on-ambiguous=same-key-retry"), "fail-closed").status,
            VerdictStatus::pass);
}

TEST(JudgeTraffic, TheAdviceNamesTheDefaultsAndTheCallersWordNotAScenario) {
  Traffic traffic({"fail-before-commit", "fail-before-commit", "fail-before-commit"});
  for (int attempt = 0; attempt < 4; ++attempt)
    traffic.create("k-1", kOrder1, 10);  // each at once, one more than the default budget

  const ScenarioResult result = judged(traffic.journal());
  const std::string backoff = verdict(result, "backoff").explanation;
  EXPECT_NE(backoff.find("the floor is 50 ms (the default floor; if the service promises "
                         "another, declare it: --client-policy min-backoff=DURATION)"),
            std::string::npos)
      << backoff;
  const std::string budget = verdict(result, "attempt-budget").explanation;
  EXPECT_NE(budget.find("the budget is 3 (the default; if the service makes more by design, "
                        "declare it: --client-policy attempts=N)"),
            std::string::npos)
      << budget;
  EXPECT_EQ(verdicts_text(result).find("scenario"), std::string::npos)
      << "there is no scenario behind traffic: " << verdicts_text(result);

  // GET /_test/verdicts and the embed helpers take the policy as policy=...
  const ScenarioResult asked =
      judge_traffic(traffic.journal(), {.operation_field = "orderId", .declare_with = "policy="});
  EXPECT_NE(verdict(asked, "backoff").explanation.find("declare it: policy=min-backoff=DURATION"),
            std::string::npos)
      << verdict(asked, "backoff").explanation;
}

TEST(JudgeTraffic, AnOperationsPayloadIsTheOneItsFirstCreateCarried) {
  Traffic traffic({"fail-before-commit"});
  traffic.create("k-1", kOrder1);
  traffic.create("k-1", {{"orderId", "o-1"}, {"amount", 2}});  // changed on the retry

  const ScenarioResult result = judged(traffic.journal());
  const Verdict& payload = verdict(result, "payload-stability");
  EXPECT_EQ(payload.status, VerdictStatus::fail);
  EXPECT_EQ(payload.evidence, (std::vector<std::uint64_t>{1, 2}));
  EXPECT_NE(payload.explanation.find("carried another body than the first attempt of"),
            std::string::npos)
      << payload.explanation;
}

TEST(JudgeTraffic, RequestsOfNoOperationAreListedAndNotJudged) {
  Traffic traffic;
  traffic.create("", kOrder1);  // no key
  traffic.other("/elsewhere");
  traffic.lookup("never-sent");
  traffic.create("k-2", kOrder2);

  const ScenarioResult result = judged(traffic.journal());
  ASSERT_EQ(result.invocations.size(), 1u);
  EXPECT_EQ(result.invocations[0].operation, "orderId=o-2");
  EXPECT_TRUE(result.met()) << verdicts_text(result);
  EXPECT_NE(result.description.find("3 requests belong to no operation (no key, or a key no "
                                    "create sent): seq 1, 2, 3"),
            std::string::npos)
      << result.description;
}

TEST(JudgeTraffic, OnlyTheVerdictsThatNeedNoOutcomeLineAreJudged) {
  Traffic traffic;
  traffic.create("k-1", kOrder1);
  const ScenarioResult result = judged(traffic.journal());

  std::vector<std::string> expected;
  std::vector<std::string> skipped;
  for (const VerdictRow& row : verdict_table())
    (row.needs == Needs::traffic ? expected : skipped).emplace_back(row.id);
  std::vector<std::string> ids;
  for (const Verdict& v : result.verdicts)
    ids.push_back(v.id);
  EXPECT_EQ(ids, expected);
  EXPECT_EQ(skipped, (std::vector<std::string>{"truthful-outcome", "crash-recovery", "gave-up",
                                               "time-limit", "client-error"}));
  EXPECT_NE(result.description.find("Not judged without a driven run's outcome lines: "
                                    "truthful-outcome, crash-recovery, gave-up, time-limit, "
                                    "client-error"),
            std::string::npos)
      << result.description;
}

TEST(JudgeTraffic, AJournalOutOfOrderIsSortedAndOneWithARepeatedSeqIsRefused) {
  Traffic traffic({"fail-before-commit"});
  traffic.create("k-1", kOrder1);
  traffic.create("k-1", kOrder1);
  std::vector<JournalEntry> journal = traffic.journal();
  std::reverse(journal.begin(), journal.end());
  EXPECT_EQ(judged(journal).journal, traffic.journal());

  journal[1].seq = journal[0].seq;
  try {
    judged(journal);
    FAIL() << "two entries with one seq";
  } catch (const std::invalid_argument& error) {
    EXPECT_STREQ(error.what(),
                 "entries[0] and entries[1] both have seq 2: a journal numbers its requests "
                 "once each");
  }
}

TEST(JudgeTraffic, TheJobsAreThoseTheJournalShowsCreated) {
  Traffic traffic({"fail-before-commit", "commit-then-error"});
  traffic.create("k-1", kOrder1);  // nothing stored
  traffic.create("k-2", kOrder2);  // stored, then a 503
  traffic.create("k-2", kOrder2);  // the replay
  const auto jobs = jobs_of_journal(traffic.journal());
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].key, "k-2");
  EXPECT_EQ(jobs[0].id, traffic.journal()[1].job_id);
}

}  // namespace
}  // namespace retryproof::scenarios
