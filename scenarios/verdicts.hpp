// Verdicts: one row per rule the harness judges a client by. Each rule is a small pure
// function over the evidence of a run (scenarios/checkers/); a violation names the journal
// entries (by seq) that prove it. `judge()` and the list of ids are derived from the table,
// so a verdict is defined once.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace retryproof::scenarios {

class Evidence;

enum class VerdictStatus { pass, fail, not_applicable };
std::string to_string(VerdictStatus status);

struct Verdict {
  std::string id;
  VerdictStatus status = VerdictStatus::pass;
  std::string explanation;              // one line a person understands; why it failed
  std::vector<std::uint64_t> evidence;  // journal seqs that prove a violation
};

struct VerdictRow {
  std::string_view id;
  Verdict (*check)(const Evidence& evidence);
  std::string_view rule;  // what it requires, in one line, for help and reports
};

// Every verdict, in report order.
const std::vector<VerdictRow>& verdict_table();
const std::vector<std::string>& verdict_ids();
// The row of one verdict; throws std::invalid_argument for an unknown id.
const VerdictRow& verdict_row(std::string_view id);

// Every checker, in table order.
std::vector<Verdict> judge(const Evidence& evidence);

}  // namespace retryproof::scenarios
