// Verdicts from traffic alone. A service under rehearsal makes its own calls: there are no
// outcome lines and no invocations, only the provider's journal (GET /_test/journal, or a
// saved copy; a proxy's is the same format). judge_traffic groups its requests into
// operations by a business field of their payloads (operations.hpp), makes one synthetic
// invocation of each operation's requests, and runs every checker of the verdict table that
// needs traffic alone — the same checkers `run` uses, over the same Evidence.
#pragma once

#include <string>
#include <vector>

#include "provider/api_shape.hpp"
#include "provider/journal.hpp"
#include "scenarios/driver/run_result.hpp"
#include "scenarios/evidence/journal_gaps.hpp"
#include "scenarios/model/client_policy.hpp"

namespace retryproof::scenarios {

struct TrafficOptions {
  // The payload field the provider recorded as each create's operation (its
  // --operation-field). Empty: the operations the journal recorded, if any, or else each
  // idempotency key is an operation (and a service that changes keys goes unseen).
  std::string operation_field;
  // Refuse a journal whose creates recorded no operation, rather than group it by key: the
  // user named a field, and a provider started without --operation-field did not record it.
  bool require_operations = false;
  ClientPolicy declared;  // what the service promises (--client-policy)
  // How the caller declares it, for the verdicts' advice (JudgedPolicy::declare_with).
  std::string declare_with = "--client-policy ";
  // The API the journal's provider spoke: without idempotency keys, a retried create is
  // judged as the risk it is.
  provider::ApiShape api = provider::jobs_shape();
  std::string name = "traffic";  // of the result
  std::string file;              // where the journal came from, for the report
  // What the journal lacks (journal_gaps.hpp): the verdicts it could change are inconclusive.
  std::vector<JournalGap> gaps = {};
  // A merged journal's: where each of its seqs came from (by seq - 1); empty otherwise.
  std::vector<EntryOrigin> origins = {};
};

// One result: an invocation per operation, the verdicts that need no outcome line, and an
// unmet expectation per failed verdict; inconclusive where the journal lacks entries, or
// holds none. Throws std::invalid_argument when two entries share
// a seq, or when operations are required and no create in the journal recorded one.
ScenarioResult judge_traffic(const std::vector<provider::JournalEntry>& journal,
                             const TrafficOptions& options);

// The jobs a journal shows created: each new operation that named a job, in seq order.
std::vector<provider::JobRecord> jobs_of_journal(
    const std::vector<provider::JournalEntry>& journal);

}  // namespace retryproof::scenarios
