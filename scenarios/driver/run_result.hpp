// What running a scenario produced, in either world (processes over real HTTP, or the
// simulation): each invocation's account, the provider's records, and the verdicts.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/millis.hpp"
#include "provider/fault_plan.hpp"
#include "provider/job_record.hpp"
#include "provider/journal.hpp"
#include "scenarios/evidence/goodput_second.hpp"
#include "scenarios/evidence/verdicts.hpp"
#include "scenarios/model/client_policy.hpp"
#include "scenarios/model/outage.hpp"
#include "scenarios/model/outcome_line.hpp"

namespace retryproof::scenarios {

// One run of the client for one operation.
struct InvocationResult {
  int index = 0;  // from 0, in the scenario's order; reports number them from 1
  std::string operation;
  nlohmann::json payload;       // what the client was asked to send (null: traffic judged alone)
  std::uint64_t first_seq = 1;  // its window of the journal: [first_seq, last_seq], from
  std::uint64_t last_seq = 0;   // its start to its reaping (empty when last_seq < first_seq);
                                // in a fleet, the first and last of its own, with other
                                // clients' between. What it is charged with is by connection
                                // (late_seqs; scenarios/driver/attribution.hpp)
  std::optional<int> port;      // a fleet client's own port (JournalEntry::port)
  // The service instance that served it, from 0, where long-lived instances serve many
  // operations (traffic, or a fleet under run --sessions): what its retry budget is shared by.
  std::optional<int> instance;
  // Which of its instance's processes ran it, from 0: one more after each restart (a kill
  // under traffic, or a crash of a session).
  int process = 0;
  // Entries charged to it from outside its window, one client after another: requests on
  // its connections that the provider read after it was reaped (a killed client's bytes),
  // in a later window or between two (scenarios/driver/attribution.hpp). By seq.
  std::vector<std::uint64_t> late_seqs;
  // In a fleet, every entry charged to it, by seq: its window holds the other clients' too.
  std::vector<std::uint64_t> seqs;
  Millis started_at{0};  // on the provider's clock
  Millis ended_at{0};
  bool killed = false;       // by the scenario's kill point, on purpose
  bool timed_out = false;    // still running at the scenario's time limit
  bool kill_missed = false;  // it ended before its kill point was reached
  // Under traffic, a run of an operation whose instance was killed while it ran (killed is
  // set on that one): the index of the operation's first run. It begins at first_seq, the
  // journal's size then plus one, on the restarted process.
  std::optional<int> rerun_of;
  // For a rerun over HTTP: the client ports of the connections the killed process held. What
  // the provider reads on them is the dead process's, even on one first seen after the rerun
  // began (written just before the kill, read just after).
  std::set<int> dead_connections;
  std::optional<OutcomeLine> outcome;  // empty when killed or when the line was missing or bad
  std::string client_error;            // why there is no valid outcome line; empty when fine
  std::string exit;                    // "exit code 0", "killed by SIGKILL"
  std::string standard_error;          // the client's, kept for the report
  // The CPU time its process used, where it ran as one process (not in a session, not in
  // the simulation): what the machine must give each client of a fleet (machine_fit.hpp).
  std::optional<Millis> cpu;

  int number() const { return index + 1; }  // as reports and messages count invocations
};

// A moment the harness itself was late by at least kStallThreshold of real time — its own
// timer woke that late, or it started a client that late —, on the provider's clock (scenario
// time): a busy machine, or a stopped one (SIGSTOP, a VM pause). What a client did then is not
// its own doing alone (scenarios/evidence/stalls.hpp).
struct Stall {
  Millis from{0};
  Millis until{0};
  std::string what;  // "its timer woke 2300 ms late", "client 7 started 400 ms late"

  Millis lasted() const { return until - from; }
};

// The provider's records at the end of a run.
struct RunEvidence {
  std::vector<provider::JournalEntry> journal;  // by seq
  std::vector<provider::JobRecord> jobs;        // in creation order
  std::vector<provider::PlanUse> planned;       // each planned fault, and how often it fired
  std::vector<Stall> stalls = {};               // the harness's own, while it ran
};

// An expectation of the scenario that the run missed, and how bad that is.
struct Unmet {
  std::string text;
  Severity severity = Severity::policy;
  std::string failed_verdict;  // the verdict whose unexpected failure this is, if one is
};

// Evidence the run lacked, so that it cannot say whether the client met an expectation: a
// verdict that could not be judged, or something the scenario as a whole did not see (a
// planned fault that never fired, an empty journal). Never counted as met.
struct Inconclusive {
  std::string text;     // what was missing, for a person: "commit-then-drop ... fired 0 times"
  std::string verdict;  // the verdict it is about; empty when it is about the scenario
};

// How a scenario ended: a failure the evidence proves wins over anything the run could not
// tell, and only a run that saw enough meets its expectations.
enum class ScenarioStatus { met, inconclusive, failed };
std::string to_string(ScenarioStatus status);  // "met", "inconclusive", "failed"

// What an operator reads off a fleet, beside the verdicts: how many operations succeeded, and
// how many took effect more than once (a fleet that looks healthy by completion can still be
// duplicating).
struct OperatorNumbers {
  int operations = 0;
  int succeeded = 0;   // by an invocation's outcome line; judged from traffic, by a job
  int duplicated = 0;  // operations with more than one job
};

// Where an entry of a journal merged from several (judge J1 J2 ...) came from: the file, by
// its place in the command line from 1, and its seq there.
struct EntryOrigin {
  int journal = 1;
  std::uint64_t seq = 0;
};

struct ScenarioResult {
  std::string name;
  std::string description;
  std::string file;
  std::string client;  // as --client spells it
  std::uint64_t seed = 0;
  std::vector<InvocationResult> invocations;
  std::vector<provider::JournalEntry> journal;
  std::vector<provider::JobRecord> jobs;
  JudgedPolicy policy;  // what the client was judged by
  std::vector<Verdict> verdicts;
  std::vector<provider::PlanUse> planned;  // the plan's faults, and how often each fired
  std::vector<Stall> stalls;  // the harness's own lateness while it ran (none in simulation)
  std::vector<Unmet> unmet;   // how the run missed the scenario's expectations
  std::vector<Inconclusive> inconclusive;  // what it could not tell, when it missed nothing
  std::vector<std::string> expected_violations;
  // The time scale it ran at (1: real time), and why when that is below the run's
  // --time-scale (scale_guard.hpp, scale_for); empty otherwise.
  int scale = 1;
  std::string scale_why;
  // What the reports draw the fleet's load for: how many clients ran at once (a scenario's
  // "concurrency"; judge: the journals, one per service instance) and the plan's outages.
  int concurrency = 1;
  std::vector<OutageWindow> outages;
  std::optional<OperatorNumbers> numbers;  // for a fleet, an outage, and judge
  std::optional<TrafficPicture> traffic;   // for a scenario with "traffic": its seconds
  // Judge of several journals: the files in the order given, and each merged entry's
  // origin, by its seq - 1. Empty otherwise (seqs are the journal's own).
  std::vector<std::string> journal_files;
  std::vector<EntryOrigin> origins;

  ScenarioStatus status() const {
    if (!unmet.empty()) return ScenarioStatus::failed;
    return inconclusive.empty() ? ScenarioStatus::met : ScenarioStatus::inconclusive;
  }
  bool met() const { return status() == ScenarioStatus::met; }
  // A fleet or an outage: the reports show its load over time.
  bool shows_load() const { return concurrency > 1 || !outages.empty(); }
  // Whether it missed an expectation at `threshold` or worse (--fail-on).
  bool fails_at(Severity threshold) const;
  int creates() const;  // requests to the create route the provider saw
};

}  // namespace retryproof::scenarios
