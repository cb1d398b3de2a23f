// What a run of a scenario produced, and the verdicts drawn from it. Each checker is a
// small pure function over the provider's journal, its jobs and the clients' reported
// outcomes; a violation names the journal entries (by seq) that prove it.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "scenarios/scenario.hpp"

namespace retryproof::scenarios {

enum class VerdictStatus { pass, fail, not_applicable };
std::string to_string(VerdictStatus status);

struct Verdict {
  std::string id;
  VerdictStatus status = VerdictStatus::pass;
  std::string explanation;              // one line a person understands; why it failed
  std::vector<std::uint64_t> evidence;  // journal seqs that prove a violation
};

// One run of the client for one operation.
struct InvocationResult {
  int index = 0;  // from 0, in the scenario's order
  std::string operation;
  nlohmann::json payload;       // what the client was asked to send
  std::uint64_t first_seq = 1;  // the journal entries it caused: [first_seq, last_seq]
  std::uint64_t last_seq = 0;   // (empty when last_seq < first_seq)
  Millis started_at{0};         // on the provider's clock
  Millis ended_at{0};
  bool killed = false;         // by the scenario's kill point, on purpose
  nlohmann::json outcome;      // the client's outcome line; null when none
  std::string client_error;    // why there is no valid outcome line; empty when fine
  std::string exit;            // "exit code 0", "killed by SIGKILL"
  std::string standard_error;  // the client's, kept for the report
};

// Everything a checker may look at. Journal entries are the provider's, as served by
// GET /_test/journal; jobs as served by GET /_test/jobs.
struct RunRecord {
  const Scenario& scenario;
  std::vector<InvocationResult> invocations;
  nlohmann::json journal;  // array of entries, by seq
  nlohmann::json jobs;     // array of {"id","key","orderId"}
};

Verdict check_no_duplicate_effect(const RunRecord& run);
Verdict check_key_stability(const RunRecord& run);
Verdict check_payload_stability(const RunRecord& run);
Verdict check_fail_closed(const RunRecord& run);
Verdict check_attempt_budget(const RunRecord& run);
Verdict check_backoff(const RunRecord& run);
Verdict check_retry_after(const RunRecord& run);
Verdict check_no_retry_of_definitive(const RunRecord& run);
Verdict check_truthful_outcome(const RunRecord& run);
Verdict check_crash_recovery(const RunRecord& run);
Verdict check_client_error(const RunRecord& run);

// Every checker, in verdict_ids() order.
std::vector<Verdict> judge(const RunRecord& run);

}  // namespace retryproof::scenarios
