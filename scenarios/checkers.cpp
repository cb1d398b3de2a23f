// The verdict checkers: pure functions of a RunRecord.
#include <algorithm>
#include <map>
#include <set>

#include "common/duration.hpp"
#include "common/fingerprint.hpp"
#include "scenarios/verdicts.hpp"

namespace retryproof::scenarios {
namespace {

using nlohmann::json;

bool is_post(const json& entry) {
  return entry["method"] == "POST" && entry["path"] == "/jobs";
}

bool is_lookup(const json& entry) {
  return entry["method"] == "GET" &&
         entry["path"].get_ref<const std::string&>().starts_with("/jobs/by-idempotency-key/");
}

std::string key_of(const json& entry) {
  return entry["key"].is_string() ? entry["key"].get<std::string>() : std::string();
}

std::uint64_t seq_of(const json& entry) {
  return entry["seq"].get<std::uint64_t>();
}
std::int64_t at_of(const json& entry) {
  return entry["atMs"].get<std::int64_t>();
}
int status_of(const json& entry) {
  return entry["status"].is_number() ? entry["status"].get<int>() : 0;
}

std::string fault_of(const json& entry) {
  return entry["fault"].is_string() ? entry["fault"].get<std::string>() : std::string();
}

// The journal entries an invocation caused, in order.
std::vector<const json*> entries_of(const RunRecord& run, const InvocationResult& invocation) {
  std::vector<const json*> entries;
  for (const auto& entry : run.journal) {
    const auto seq = seq_of(entry);
    if (seq >= invocation.first_seq && seq <= invocation.last_seq) entries.push_back(&entry);
  }
  return entries;
}

std::vector<const json*> posts_of(const RunRecord& run, const InvocationResult& invocation) {
  std::vector<const json*> posts;
  for (const json* entry : entries_of(run, invocation)) {
    if (is_post(*entry)) posts.push_back(entry);
  }
  return posts;
}

// Every POST of an operation, across its invocations, in order.
std::vector<const json*> posts_of_operation(const RunRecord& run, const std::string& operation) {
  std::vector<const json*> posts;
  for (const auto& invocation : run.invocations) {
    if (invocation.operation != operation) continue;
    for (const json* post : posts_of(run, invocation))
      posts.push_back(post);
  }
  return posts;
}

// Which operation each idempotency key was sent for.
std::map<std::string, std::string> operation_by_key(const RunRecord& run) {
  std::map<std::string, std::string> owners;
  for (const auto& invocation : run.invocations) {
    for (const json* entry : entries_of(run, invocation)) {
      if (is_post(*entry) && !key_of(*entry).empty())
        owners.emplace(key_of(*entry), invocation.operation);
    }
  }
  return owners;
}

std::vector<std::string> operation_ids(const RunRecord& run) {
  std::vector<std::string> ids;
  for (const auto& operation : run.scenario.operations)
    ids.push_back(operation.id);
  return ids;
}

// The journal entry that created a job: the new operation that returned its id.
const json* creation_of(const RunRecord& run, const std::string& job_id) {
  for (const auto& entry : run.journal) {
    if (entry["outcome"] == "new" && entry["jobId"] == job_id) return &entry;
  }
  return nullptr;
}

Verdict pass(const std::string& id, std::string explanation) {
  return {id, VerdictStatus::pass, std::move(explanation), {}};
}

Verdict not_applicable(const std::string& id, std::string explanation) {
  return {id, VerdictStatus::not_applicable, std::move(explanation), {}};
}

// Collects violations; the first explains the verdict, every one adds its evidence.
struct Violations {
  std::string id;
  std::vector<std::string> explanations;
  std::vector<std::uint64_t> evidence;

  void add(std::string explanation, std::initializer_list<std::uint64_t> seqs) {
    explanations.push_back(std::move(explanation));
    evidence.insert(evidence.end(), seqs);
  }
  Verdict verdict(std::string if_none) {
    if (explanations.empty()) return pass(id, std::move(if_none));
    std::sort(evidence.begin(), evidence.end());
    evidence.erase(std::unique(evidence.begin(), evidence.end()), evidence.end());
    std::string text = explanations.front();
    if (explanations.size() > 1)
      text += " (and " + std::to_string(explanations.size() - 1) + " more)";
    return {id, VerdictStatus::fail, std::move(text), std::move(evidence)};
  }
};

std::string seq_text(const json& entry) {
  return "seq " + std::to_string(seq_of(entry));
}

// How long a delayed fault held its response, or zero.
Millis held_for(const std::string& fault) {
  for (const std::string prefix : {"commit-then-delay:", "delay-before-commit:"}) {
    if (fault.starts_with(prefix)) {
      try {
        return parse_duration(fault.substr(prefix.size()));
      } catch (const std::invalid_argument&) {
        return Millis(0);
      }
    }
  }
  return Millis(0);
}

// Why the client could not see the outcome of this request, or empty when it could.
// `next_about_key` is the next request naming the same key, if any.
std::string ambiguity_of(const json& entry, const json* next_about_key) {
  if (!is_post(entry) || entry["outcome"] != "new") return {};
  const std::string fault = fault_of(entry);
  if (fault == "commit-then-drop" || fault == "drop-before-commit") return "a dropped connection";
  if (fault == "commit-then-reset") return "a reset connection";
  if (fault == "commit-then-truncate") return "a truncated response";
  if (status_of(entry) == 500) return "a 500";
  const Millis held = held_for(fault);
  if (held > Millis(0) && next_about_key != nullptr &&
      at_of(*next_about_key) < at_of(entry) + held.count()) {
    return "a response held past the client's patience (" + fault + ")";
  }
  return {};
}

}  // namespace

std::string to_string(VerdictStatus status) {
  switch (status) {
    case VerdictStatus::pass:
      return "pass";
    case VerdictStatus::fail:
      return "fail";
    case VerdictStatus::not_applicable:
      return "n/a";
  }
  return "n/a";
}

Verdict check_no_duplicate_effect(const RunRecord& run) {
  Violations violations{"no-duplicate-effect"};
  const auto owners = operation_by_key(run);
  for (const auto& operation : operation_ids(run)) {
    std::vector<const json*> jobs;
    for (const auto& job : run.jobs) {
      const auto owner = owners.find(job["key"]);
      if (owner != owners.end() && owner->second == operation) jobs.push_back(&job);
    }
    if (jobs.size() <= 1) continue;
    std::string listing;
    std::vector<std::uint64_t> seqs;
    for (const json* job : jobs) {
      const json* created = creation_of(run, (*job)["id"]);
      listing += (listing.empty() ? "" : ", ") + (*job)["id"].get<std::string>() + " (key " +
                 (*job)["key"].get<std::string>() + (created ? ", " + seq_text(*created) : "") +
                 ")";
      if (created) seqs.push_back(seq_of(*created));
    }
    violations.explanations.push_back("operation " + operation + " has " +
                                      std::to_string(jobs.size()) + " jobs: " + listing +
                                      "; one logical operation must create one job");
    violations.evidence.insert(violations.evidence.end(), seqs.begin(), seqs.end());
  }
  return violations.verdict("every operation has at most one job");
}

Verdict check_key_stability(const RunRecord& run) {
  Violations violations{"key-stability"};
  for (const auto& operation : operation_ids(run)) {
    std::vector<const json*> first_of_each_key;
    std::set<std::string> keys;
    for (const json* post : posts_of_operation(run, operation)) {
      if (keys.insert(key_of(*post)).second) first_of_each_key.push_back(post);
    }
    if (first_of_each_key.size() <= 1) continue;
    std::string listing;
    std::vector<std::uint64_t> seqs;
    for (const json* post : first_of_each_key) {
      listing += (listing.empty() ? "" : ", ") + key_of(*post) + " (" + seq_text(*post) + ")";
      seqs.push_back(seq_of(*post));
    }
    violations.explanations.push_back("operation " + operation + " was sent with " +
                                      std::to_string(first_of_each_key.size()) +
                                      " keys: " + listing + "; every attempt must carry one key");
    violations.evidence.insert(violations.evidence.end(), seqs.begin(), seqs.end());
  }
  return violations.verdict("every operation was sent with one key");
}

Verdict check_payload_stability(const RunRecord& run) {
  Violations violations{"payload-stability"};
  for (const auto& invocation : run.invocations) {
    const std::string expected = retryproof::fingerprint(invocation.payload);
    for (const json* post : posts_of(run, invocation)) {
      // A POST refused before its body was read (no key, say) carried no payload to judge.
      if ((*post)["fingerprint"].is_null() || (*post)["fingerprint"] == expected) continue;
      const bool refused = (*post)["outcome"] == "rejected";
      violations.add("POST /jobs with key " + key_of(*post) + " (" + seq_text(*post) +
                         ") carried a payload other than the one operation " +
                         invocation.operation + " asked for" +
                         (refused ? "; the provider refused it with 422" : ""),
                     {seq_of(*post)});
    }
  }
  return violations.verdict("every attempt carried the operation's payload");
}

Verdict check_fail_closed(const RunRecord& run) {
  Violations violations{"fail-closed"};
  bool any_ambiguous = false;
  for (std::size_t i = 0; i < run.journal.size(); ++i) {
    const json& entry = run.journal[i];
    const json* next = nullptr;
    for (std::size_t j = i + 1; j < run.journal.size() && next == nullptr; ++j) {
      if (key_of(run.journal[j]) == key_of(entry)) next = &run.journal[j];
    }
    const std::string ambiguity = ambiguity_of(entry, next);
    if (ambiguity.empty()) continue;
    any_ambiguous = true;
    if (next != nullptr && is_post(*next)) {
      violations.add("POST /jobs with key " + key_of(entry) + " was re-sent (" + seq_text(*next) +
                         ") after " + ambiguity + " (" + seq_text(entry) +
                         "); a lookup by key was required first",
                     {seq_of(entry), seq_of(*next)});
    }
  }
  if (!any_ambiguous) return not_applicable("fail-closed", "no outcome was hidden from the client");
  return violations.verdict("every hidden outcome was followed by a lookup, or by nothing");
}

Verdict check_attempt_budget(const RunRecord& run) {
  // Per run of the client: a later invocation is a new decision to carry the operation out.
  Violations violations{"attempt-budget"};
  const auto budget = static_cast<std::size_t>(run.scenario.settings.attempts);
  for (const auto& invocation : run.invocations) {
    const auto posts = posts_of(run, invocation);
    if (posts.size() <= budget) continue;
    violations.add("invocation " + std::to_string(invocation.index + 1) + " (" +
                       invocation.operation + ") sent " + std::to_string(posts.size()) +
                       " POSTs; the budget is " + std::to_string(budget) +
                       " (the first over it: " + seq_text(*posts[budget]) + ")",
                   {seq_of(*posts[budget])});
  }
  return violations.verdict("every run of the client stayed within " + std::to_string(budget) +
                            " attempts");
}

Verdict check_backoff(const RunRecord& run) {
  Violations violations{"backoff"};
  const auto floor = run.scenario.min_gap.count();
  bool any_retry = false;
  for (const auto& invocation : run.invocations) {
    const auto posts = posts_of(run, invocation);
    for (std::size_t i = 1; i < posts.size(); ++i) {
      any_retry = true;
      const auto gap = at_of(*posts[i]) - at_of(*posts[i - 1]);
      if (gap >= floor) continue;
      violations.add("attempt " + std::to_string(i + 1) + " of " + invocation.operation + " (" +
                         seq_text(*posts[i]) + ") came " + std::to_string(gap) +
                         " ms after the previous one (" + seq_text(*posts[i - 1]) +
                         "); the floor is " + std::to_string(floor) + " ms",
                     {seq_of(*posts[i - 1]), seq_of(*posts[i])});
    }
  }
  if (!any_retry) return not_applicable("backoff", "no operation was retried");
  return violations.verdict("every retry waited at least " + std::to_string(floor) + " ms");
}

Verdict check_retry_after(const RunRecord& run) {
  Violations violations{"retry-after"};
  bool any_limited = false;
  for (const auto& invocation : run.invocations) {
    const auto posts = posts_of(run, invocation);
    for (std::size_t i = 0; i + 1 < posts.size(); ++i) {
      if (status_of(*posts[i]) != 429) continue;
      any_limited = true;
      const std::string fault = fault_of(*posts[i]);
      const auto colon = fault.find(':');
      const std::int64_t seconds =
          colon == std::string::npos ? 1 : std::stoll(fault.substr(colon + 1));
      const auto gap = at_of(*posts[i + 1]) - at_of(*posts[i]);
      if (gap >= seconds * 1000) continue;
      violations.add("after a 429 with Retry-After: " + std::to_string(seconds) + " (" +
                         seq_text(*posts[i]) + "), the next attempt came " + std::to_string(gap) +
                         " ms later (" + seq_text(*posts[i + 1]) + ")",
                     {seq_of(*posts[i]), seq_of(*posts[i + 1])});
    }
  }
  if (!any_limited) return not_applicable("retry-after", "no retried request was rate-limited");
  return violations.verdict("every retry after a 429 waited its Retry-After");
}

Verdict check_no_retry_of_definitive(const RunRecord& run) {
  Violations violations{"no-retry-of-definitive"};
  bool any_definitive = false;
  for (const auto& invocation : run.invocations) {
    const auto posts = posts_of(run, invocation);
    for (std::size_t i = 0; i < posts.size(); ++i) {
      const int status = status_of(*posts[i]);
      if (status != 400 && status != 422) continue;
      any_definitive = true;
      if (i + 1 < posts.size()) {
        violations.add("POST /jobs was re-sent (" + seq_text(*posts[i + 1]) + ") after a " +
                           std::to_string(status) + " (" + seq_text(*posts[i]) +
                           "), which no retry can change",
                       {seq_of(*posts[i]), seq_of(*posts[i + 1])});
      }
    }
  }
  if (!any_definitive) return not_applicable("no-retry-of-definitive", "no request was refused");
  return violations.verdict("nothing was re-sent after a 400 or 422");
}

Verdict check_truthful_outcome(const RunRecord& run) {
  Violations violations{"truthful-outcome"};
  const auto owners = operation_by_key(run);
  int unknown = 0;
  for (const auto& invocation : run.invocations) {
    if (!invocation.outcome.is_object()) continue;  // killed, or a client error
    const std::string outcome = invocation.outcome.value("outcome", "");
    const std::string label =
        "invocation " + std::to_string(invocation.index + 1) + " (" + invocation.operation + ")";
    if (outcome == "unknown") {
      ++unknown;
    } else if (outcome == "succeeded") {
      const std::string job_id = invocation.outcome.value("jobId", "");
      const bool held = std::any_of(run.jobs.begin(), run.jobs.end(), [&](const json& job) {
        const auto owner = owners.find(job["key"]);
        return job["id"] == job_id && owner != owners.end() &&
               owner->second == invocation.operation;
      });
      if (!held) {
        violations.add(label + " reported succeeded with " + job_id +
                           ", which the provider does not hold for this operation",
                       {});
      }
    } else if (outcome == "failed") {
      // A job created with exactly the payload this invocation was asked to send, by a
      // request that arrived before the invocation ended (a later run's job is not its).
      const std::string fingerprint = retryproof::fingerprint(invocation.payload);
      for (const auto& job : run.jobs) {
        const auto owner = owners.find(job["key"]);
        const json* created = creation_of(run, job["id"]);
        if (owner == owners.end() || owner->second != invocation.operation || created == nullptr ||
            (*created)["fingerprint"] != fingerprint || seq_of(*created) > invocation.last_seq) {
          continue;
        }
        violations.add(label + " reported failed, but the provider holds " +
                           job["id"].get<std::string>() + " for key " +
                           job["key"].get<std::string>() + " (created at " + seq_text(*created) +
                           ")",
                       {seq_of(*created)});
      }
    }
  }
  return violations.verdict(
      unknown == 0 ? "every reported outcome matches the provider's records"
                   : "every reported outcome matches the provider's records; " +
                         std::to_string(unknown) + " unknown (allowed: failed closed)");
}

Verdict check_crash_recovery(const RunRecord& run) {
  Violations violations{"crash-recovery"};
  bool any_kill = false;
  for (std::size_t i = 0; i < run.invocations.size(); ++i) {
    if (!run.invocations[i].killed) continue;
    any_kill = true;
    const std::string& operation = run.invocations[i].operation;
    const auto rerun = std::find_if(
        run.invocations.begin() + static_cast<std::ptrdiff_t>(i) + 1, run.invocations.end(),
        [&](const auto& later) { return later.operation == operation; });
    if (rerun == run.invocations.end()) continue;
    const auto entries = entries_of(run, *rerun);
    if (!entries.empty() && !is_lookup(*entries.front())) {
      violations.add("after the restart, the first request for " + operation + " was " +
                         entries.front()->at("method").get<std::string>() + " " +
                         entries.front()->at("path").get<std::string>() + " (" +
                         seq_text(*entries.front()) +
                         "); the planned intent had to be looked up first",
                     {seq_of(*entries.front())});
    }
  }
  if (!any_kill) return not_applicable("crash-recovery", "no client was killed");
  Verdict duplicates = check_no_duplicate_effect(run);
  if (duplicates.status == VerdictStatus::fail) {
    violations.add("after the restart: " + duplicates.explanation, {});
    violations.evidence.insert(violations.evidence.end(), duplicates.evidence.begin(),
                               duplicates.evidence.end());
  }
  return violations.verdict("the restarted client looked up its intent and created no second job");
}

Verdict check_client_error(const RunRecord& run) {
  Violations violations{"client-error"};
  for (const auto& invocation : run.invocations) {
    if (invocation.killed || invocation.client_error.empty()) continue;
    violations.add("invocation " + std::to_string(invocation.index + 1) + " (" +
                       invocation.operation + "): " + invocation.client_error,
                   {});
  }
  return violations.verdict("every invocation printed one valid outcome line");
}

std::vector<Verdict> judge(const RunRecord& run) {
  return {check_no_duplicate_effect(run), check_key_stability(run),
          check_payload_stability(run),   check_fail_closed(run),
          check_attempt_budget(run),      check_backoff(run),
          check_retry_after(run),         check_no_retry_of_definitive(run),
          check_truthful_outcome(run),    check_crash_recovery(run),
          check_client_error(run)};
}

}  // namespace retryproof::scenarios
