#include "scenarios/driver/attribution.hpp"

#include <map>
#include <optional>
#include <utility>

#include "common/invariant.hpp"
#include "scenarios/driver/driver.hpp"

namespace retryproof::scenarios {
namespace {

using provider::JournalEntry;
using Charged = std::vector<std::vector<JournalEntry>>;

Charged by_listener(const std::vector<JournalEntry>& journal,
                    const std::vector<InvocationResult>& invocations) {
  std::map<int, std::size_t> invocation_of_port;
  for (std::size_t i = 0; i < invocations.size(); ++i) {
    check_invariant(invocations[i].port.has_value(), "every fleet client has a port of its own");
    invocation_of_port.emplace(*invocations[i].port, i);
  }
  Charged entries(invocations.size());
  for (const JournalEntry& entry : journal) {
    if (!entry.port) continue;
    if (const auto found = invocation_of_port.find(*entry.port); found != invocation_of_port.end())
      entries[found->second].push_back(entry);
  }
  return entries;
}

// Where a seq fell among windows that follow one another: inside one (`inside`), or after
// the end of the last one that ended before it (`after`, empty before the first window).
struct Place {
  std::optional<std::size_t> inside;
  std::optional<std::size_t> after;
};

Place place_of(std::uint64_t seq, const std::vector<InvocationResult>& invocations) {
  Place place;
  for (std::size_t i = 0; i < invocations.size(); ++i) {
    const InvocationResult& invocation = invocations[i];
    if (seq < invocation.first_seq) break;
    if (seq <= invocation.last_seq) {
      place.inside = i;
      return place;
    }
    place.after = i;
  }
  return place;
}

Charged by_connection(const std::vector<JournalEntry>& journal,
                      const std::vector<InvocationResult>& invocations) {
  Charged entries(invocations.size());
  // A connection is the listener it was accepted on and the client's port; a port reused
  // for a later connection starts again at its first request (new_connection).
  std::map<std::pair<int, int>, std::size_t> owner_of_connection;
  for (const JournalEntry& entry : journal) {
    const Place place = place_of(entry.seq, invocations);
    std::optional<std::size_t> owner = place.inside;
    if (entry.client_port) {
      const std::pair<int, int> connection{entry.port.value_or(0), *entry.client_port};
      const auto known = owner_of_connection.find(connection);
      if (known != owner_of_connection.end() && !entry.new_connection) {
        owner = known->second;
      } else {
        // Opened within a window, it is that client's; between two, when no client ran,
        // only the one that ran last can have opened it.
        if (!owner) owner = place.after;
        if (owner) owner_of_connection.insert_or_assign(connection, *owner);
      }
    }
    if (owner) entries[*owner].push_back(entry);
  }
  return entries;
}

// The runs of one operation: its first, then each rerun after a kill of its instance, in the
// order they began. A request is its own run's: the last to begin before the request's
// connection was first seen (a restarted process opens connections of its own; what the
// killed one had written is read on its old ones, however late), but never a rerun's on a
// connection the killed process held (a request it wrote on a connection it had just opened,
// read after the rerun began).
class RunsOfOperations {
 public:
  explicit RunsOfOperations(const std::vector<InvocationResult>& invocations)
      : invocations_(invocations) {
    for (std::size_t i = 0; i < invocations.size(); ++i)
      if (const std::optional<int> first = invocations[i].rerun_of)
        runs_[static_cast<std::size_t>(*first)].push_back(i);
  }

  std::size_t run_of(std::size_t first, const JournalEntry& entry,
                     std::uint64_t connection_seen_at) const {
    const auto reruns = runs_.find(first);
    if (reruns == runs_.end()) return first;
    std::size_t owner = first;
    for (const std::size_t rerun : reruns->second) {
      const InvocationResult& run = invocations_[rerun];
      const bool dead_ones = entry.client_port && run.dead_connections.contains(*entry.client_port);
      if (run.first_seq <= connection_seen_at && !dead_ones) owner = rerun;
    }
    return owner;
  }

 private:
  const std::vector<InvocationResult>& invocations_;
  std::map<std::size_t, std::vector<std::size_t>> runs_;  // by first run: its reruns, in order
};

// The seq each entry's connection was first seen at (its own, for an entry on none).
std::vector<std::uint64_t> connections_seen_at(const std::vector<JournalEntry>& journal) {
  std::map<std::pair<int, int>, std::uint64_t> first_seen;
  std::vector<std::uint64_t> seen_at;
  seen_at.reserve(journal.size());
  for (const JournalEntry& entry : journal) {
    if (!entry.client_port) {
      seen_at.push_back(entry.seq);
      continue;
    }
    const std::pair<int, int> connection{entry.port.value_or(0), *entry.client_port};
    auto [known, inserted] = first_seen.emplace(connection, entry.seq);
    if (!inserted && entry.new_connection) known->second = entry.seq;
    seen_at.push_back(known->second);
  }
  return seen_at;
}

}  // namespace

Charged charged_by_operation(const std::vector<JournalEntry>& journal,
                             const std::vector<InvocationResult>& invocations,
                             const std::string& operation_field) {
  // The payload's own operation field; or, where an SDK maps the payload to its API's body
  // (its shape's field is "Name", carrying the payload's orderId), each of its text values.
  // Each names the operation's first run; its reruns are told apart by connection.
  std::map<std::string, std::size_t> invocation_of_value;
  const RunsOfOperations runs(invocations);
  for (std::size_t i = 0; i < invocations.size(); ++i) {
    if (invocations[i].rerun_of) continue;
    const nlohmann::json& payload = invocations[i].payload;
    if (const auto value = provider::operation_value(payload, operation_field)) {
      invocation_of_value.emplace(*value, i);
      continue;
    }
    if (!payload.is_object()) continue;
    for (const auto& [field, value] : payload.items())
      if (value.is_string()) invocation_of_value.emplace(value.get<std::string>(), i);
  }
  // A key belongs to the operation whose create first carried it; a key that is an
  // operation's id (the reference client's), to that operation even before any create carried
  // it: a rerun after a kill looks its key up first, and its killed run may have sent nothing.
  std::map<std::string, std::size_t> invocation_of_key;
  for (std::size_t i = 0; i < invocations.size(); ++i)
    if (!invocations[i].rerun_of) invocation_of_key.emplace(invocations[i].operation, i);
  for (const JournalEntry& entry : journal) {
    if (entry.kind != provider::RequestKind::create || !entry.key || !entry.operation) continue;
    if (const auto found = invocation_of_value.find(*entry.operation);
        found != invocation_of_value.end())
      invocation_of_key.emplace(*entry.key, found->second);
  }
  const std::vector<std::uint64_t> seen_at = connections_seen_at(journal);
  Charged entries(invocations.size());
  for (std::size_t n = 0; n < journal.size(); ++n) {
    const JournalEntry& entry = journal[n];
    std::optional<std::size_t> owner;
    if (entry.key) {
      if (const auto found = invocation_of_key.find(*entry.key); found != invocation_of_key.end())
        owner = found->second;
    }
    if (!owner && entry.operation) {
      if (const auto found = invocation_of_value.find(*entry.operation);
          found != invocation_of_value.end())
        owner = found->second;
    }
    if (owner) entries[runs.run_of(*owner, entry, seen_at[n])].push_back(entry);
  }
  return entries;
}

Charged charged_for(const Scenario& scenario, const std::vector<JournalEntry>& journal,
                    const std::vector<InvocationResult>& invocations) {
  // A fleet served by sessions (run --sessions) has no port per client: its requests, as
  // traffic's, are charged by what they carry.
  const bool by_what_they_carry =
      scenario.traffic ||
      (scenario.fleet.is_fleet() && !invocations.empty() && !invocations.front().port.has_value());
  if (by_what_they_carry) {
    return charged_by_operation(journal, invocations,
                                scenario.api.operation_pointer().value_or(kScenarioOperationField));
  }
  return charged_entries(journal, invocations, scenario.fleet.is_fleet());
}

Charged charged_entries(const std::vector<JournalEntry>& journal,
                        const std::vector<InvocationResult>& invocations, bool fleet) {
  return fleet ? by_listener(journal, invocations) : by_connection(journal, invocations);
}

void record_charges(const Charged& entries, std::vector<InvocationResult>& invocations,
                    bool fleet) {
  check_invariant(entries.size() == invocations.size(),
                  "every invocation has its list of charged entries");
  for (std::size_t i = 0; i < invocations.size(); ++i) {
    InvocationResult& invocation = invocations[i];
    if (fleet) {
      invocation.seqs.clear();
      for (const JournalEntry& entry : entries[i])
        invocation.seqs.push_back(entry.seq);
      if (entries[i].empty()) continue;
      // A rerun's window starts where it began: what is charged to it is told by that (it is
      // re-attributed, scale_guard.hpp), and its first own request may come later.
      if (!invocation.rerun_of) invocation.first_seq = entries[i].front().seq;
      invocation.last_seq = entries[i].back().seq;
      continue;
    }
    invocation.late_seqs.clear();
    for (const JournalEntry& entry : entries[i]) {
      if (entry.seq < invocation.first_seq || entry.seq > invocation.last_seq)
        invocation.late_seqs.push_back(entry.seq);
    }
  }
}

}  // namespace retryproof::scenarios
