#include "scenarios/process/kill_watch.hpp"

#include <vector>

namespace retryproof::scenarios {
namespace {

std::pair<int, int> connection_of(const provider::JournalEntry& entry) {
  return {entry.port.value_or(0), *entry.client_port};
}

}  // namespace

KillWatch::KillWatch(const provider::ProviderCore& core, KillPoint kill)
    : core_(core),
      kill_(kill),
      first_seq_(core.journal_size() + 1),
      jobs_before_(core.job_count()) {
  if (!kill_.armed()) return;
  // The window and the connections before it from one reading of the journal.
  const std::vector<provider::JournalEntry> before = core.journal();
  first_seq_ = before.size() + 1;
  for (const provider::JournalEntry& entry : before) {
    if (entry.client_port) earlier_connections_.insert(connection_of(entry));
  }
}

bool KillWatch::reached() const {
  if (!kill_.armed()) return false;
  const std::size_t jobs = core_.job_count();
  const std::vector<provider::JournalEntry> journal = core_.journal();
  std::size_t requests = 0;
  std::size_t predecessors_jobs = 0;
  for (const provider::JournalEntry& entry : journal) {
    if (entry.seq < first_seq_) continue;
    const bool predecessors = entry.client_port && !entry.new_connection &&
                              earlier_connections_.contains(connection_of(entry));
    if (!predecessors) {
      ++requests;
    } else if (entry.outcome == provider::Outcome::new_operation && entry.job_id) {
      ++predecessors_jobs;
    }
  }
  const std::size_t new_jobs = jobs - jobs_before_;
  return kill_.reached(new_jobs > predecessors_jobs ? new_jobs - predecessors_jobs : 0, requests);
}

}  // namespace retryproof::scenarios
