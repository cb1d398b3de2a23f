// The catalogue of ways the provider can fail a new operation (or a lookup): one row per
// fault, saying what it targets, whether and when it commits, what the client is sent and
// how, and whether that hides the outcome. The provider core, the fault plans, the schedule
// generator, the model test and the help text all read the table; nothing else knows a
// fault by name.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/millis.hpp"
#include "provider/http_types.hpp"

namespace retryproof::provider {

enum class FaultKind {
  none,
  fail_before_commit,
  commit_then_error,
  commit_then_drop,
  commit_then_reset,
  drop_before_commit,
  commit_then_delay,
  delay_before_commit,
  rate_limited,
  commit_then_truncate,
  commit_then_500,
  lookup_unavailable,
  reset_before_commit,
};

struct Fault {
  FaultKind kind = FaultKind::none;
  Millis duration{0};           // a hold: commit-then-delay, delay-before-commit
  int retry_after_seconds = 1;  // rate-limited

  friend bool operator==(const Fault&, const Fault&) = default;
};

// What a fault's ":<argument>" sets.
enum class FaultParameter {
  none,
  hold,         // a duration, required: how long the answer (or the commit) waits
  retry_after,  // whole seconds, optional (default 1): the Retry-After header
};

// Which request takes the fault from a plan.
enum class FaultTarget { create, lookup };

// When the job is stored, relative to the answer.
enum class Commit {
  never,
  before_answer,  // stored at once; the answer (whatever it is) comes after
  after_hold,     // held in flight for the duration (409 to duplicates), then stored
};

// Whether what the client receives tells it if the job exists.
enum class Hides {
  never,         // a whole, definitive answer
  always,        // no response, a partial one, or a 500
  past_timeout,  // the answer is held: hidden from a client that stops waiting first
};

// Schedules draw faults from nested menus: recoverable ⊂ instant ⊂ all.
enum class FaultMenu {
  recoverable,  // a correct client always ends with a proven outcome
  instant,      // adds what makes a correct client end unknown (a failing lookup)
  all,          // adds the holds, whose outcome over real HTTP depends on timing
};

struct FaultRow {
  FaultKind kind;
  std::string_view name;
  FaultParameter parameter;
  FaultTarget target;
  Commit commit;
  int status;                     // of the answer; 201 is the created job
  std::string_view error_code;    // the answer's error code, for a status other than 201
  std::string_view error_detail;  // and what it tells a person; empty for the original's bodies
  Delivery delivery;              // how the answer reaches the client
  Hides hides;
  std::string_view client_sees;            // for help and reports
  FaultMenu menu;                          // the smallest menu a schedule may draw it from
  std::vector<std::string_view> drawn_as;  // its spellings in schedules
};

// Every fault, `none` first, in the order help and docs list them.
const std::vector<FaultRow>& fault_catalogue();
const FaultRow& row_of(FaultKind kind);

// The fault as written in plans and logs: "commit-then-drop", "commit-then-delay:250ms",
// "rate-limited:3" ("rate-limited" for the default of one second).
std::string to_string(const Fault& fault);

// Parses a fault as written in a plan. Throws std::invalid_argument with a message that
// names the text and says what is accepted.
Fault parse_fault(std::string_view text);

// How a plan writes the row's fault: "commit-then-delay:<duration>", "rate-limited[:<seconds>]".
std::string spelling(const FaultRow& row);

// Every row's spelling: "none, fail-before-commit, ..., rate-limited[:<seconds>], ..."
std::string fault_names();

// The spellings schedules may draw from `menu`, in catalogue order.
std::vector<std::string> faults_in(FaultMenu menu);

}  // namespace retryproof::provider
