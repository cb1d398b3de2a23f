// Verdicts: one row per rule the harness judges a client by. Each rule is a small pure
// function over the evidence of a run (scenarios/evidence/checkers/); a violation names the journal
// entries (by seq) that prove it. `judge()` and the list of ids are derived from the table,
// so a verdict is defined once.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace retryproof::scenarios {

class Evidence;

// Inconclusive: the run lacked the evidence to decide (a planned fault that never fired, a
// journal with entries missing, a window the harness itself was stalled in). It is never
// counted as met, and never an escape from a failure the evidence proves.
enum class VerdictStatus { pass, fail, not_applicable, inconclusive };
std::string to_string(VerdictStatus status);

// How bad a failure is. Harm: a duplicate effect, an untruthful or missing outcome, a job
// lost or duplicated by a crash, a payload the operation did not ask for. Policy: a rule
// of the safe pattern that the client broke without harm here (lookup-first, budget,
// backoff, Retry-After, no retry of a definitive failure...). Ordered: harm is worse.
enum class Severity { policy, harm };
std::string to_string(Severity severity);
// "harm" or "policy"; throws std::invalid_argument otherwise.
Severity parse_severity(std::string_view text);

struct Verdict {
  std::string id;
  VerdictStatus status = VerdictStatus::pass;
  std::string explanation;              // one line a person understands: why it failed, or
                                        // what it lacked to decide (inconclusive)
  std::vector<std::uint64_t> evidence;  // journal seqs that prove a violation
  // Of a failure: its row's, or worse where the checker found worse (crash-recovery's
  // second job is harm where its skipped lookup is policy). judge() takes the worse of the
  // two, so a checker can only escalate.
  Severity severity = Severity::policy;
};

// What a verdict is judged from. Traffic: the provider's journal alone, so it can judge a
// service that makes its own calls (retryproof judge). Outcomes: also the account only a
// driven run gives — outcome lines, kill points, the time limit, exit statuses.
enum class Needs { traffic, outcomes };

// What a failure rests on. Order: which requests came, in what order, with what (a second
// job, a key that changed, a re-send before a lookup): a slow machine cannot make those up.
// Time: how long something took or waited, which a harness that was itself stalled may have
// stretched or bunched; such a failure in a window the harness was stalled in is inconclusive
// (scenarios/evidence/stalls.hpp).
enum class Rests { on_order, on_time };

struct VerdictRow {
  std::string_view id;
  Severity severity;  // of a failure, unless the checker escalates it
  Verdict (*check)(const Evidence& evidence);
  std::string_view rule;  // what it requires, in one line, for help and reports
  Needs needs = Needs::traffic;
  Rests rests = Rests::on_order;
};

// Every verdict, in report order.
const std::vector<VerdictRow>& verdict_table();
const std::vector<std::string>& verdict_ids();
// The row of one verdict; throws std::invalid_argument for an unknown id.
const VerdictRow& verdict_row(std::string_view id);

// Every checker whose needs the evidence meets, in table order: all of them for a driven
// run, those that need traffic alone for a journal judged without one.
std::vector<Verdict> judge(const Evidence& evidence, Needs available = Needs::outcomes);

}  // namespace retryproof::scenarios
