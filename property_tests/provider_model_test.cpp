// The provider core against a small model of its contract (rc::state): random sequences
// of new posts, repeats, changed payloads, lookups, fault scripts drawn from every row of
// fault_catalogue(), clock advances past the key TTL and resets. After each command: the
// status, the stored job, the replay's identity, the job count and the journal's length.
// A fault's answer is judged by its row (commit, status, delivery, parameter), so a fault
// added to the catalogue is scripted and judged here without an edit.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>
#include <rapidcheck/state.h>

#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "provider/fault.hpp"
#include "provider/provider_core.hpp"

namespace retryproof::provider {
namespace {

using nlohmann::json;
using std::chrono::hours;

constexpr Millis kKeyTtl = hours(24);
const std::vector<std::string> kKeys = {"key-a", "key-b", "key-c", "key-d"};
// How a script writes a catalogue row's fault: its name, with an argument where it takes one.
std::string scripted(const FaultRow& row) {
  switch (row.parameter) {
    case FaultParameter::hold:
      return std::string(row.name) + ":3s";
    case FaultParameter::retry_after:
      return std::string(row.name) + ":2";
    case FaultParameter::none:
      break;
  }
  return std::string(row.name);
}

// Every fault of the catalogue, `none` included: a fault added to fault_catalogue() is in the
// scripts, and judged by its row, without a line here.
const std::vector<std::string> kFaults = [] {
  std::vector<std::string> faults;
  for (const FaultRow& row : fault_catalogue())
    faults.push_back(scripted(row));
  return faults;
}();

const FaultRow& row_of_scripted(const std::string& fault) {
  return row_of(parse_fault(fault).kind);
}

bool for_lookup(const std::string& fault) {
  return row_of_scripted(fault).target == FaultTarget::lookup;
}

struct Model {
  struct Key {
    int payload;  // which of the three payloads created it
    Millis created;
  };
  std::map<std::string, Key> keys;
  std::deque<std::string> script;
  std::size_t jobs = 0;
  std::size_t journal = 0;
  Millis now{0};  // what /_test/clock has added

  bool known(const std::string& key) const {
    const auto found = keys.find(key);
    return found != keys.end() && now - found->second.created <= kKeyTtl;
  }
  // The fault the next new operation takes: the first script entry that targets a create.
  std::optional<std::size_t> next_create_fault() const {
    for (std::size_t i = 0; i < script.size(); ++i) {
      if (!for_lookup(script[i])) return i;
    }
    return std::nullopt;
  }
  std::optional<std::size_t> next_lookup_fault() const {
    for (std::size_t i = 0; i < script.size(); ++i) {
      if (for_lookup(script[i])) return i;
    }
    return std::nullopt;
  }
};

// The system under test, and what it taught us: the job id each key got.
struct Sut {
  ProviderCore core{ProviderConfig{.seed = 11, .key_ttl = kKeyTtl}};
  std::map<std::string, std::string> ids;
};

json payload(int which) {
  return {{"orderId", "order-" + std::to_string(which)}, {"amount", 10 * which}};
}

Decision post(Sut& sut, const std::string& key, int which) {
  return sut.core.handle({"POST", "/jobs", {{"Idempotency-Key", key}}, payload(which).dump()},
                         Millis(0));
}

Decision control(Sut& sut, const std::string& path, const json& body) {
  return sut.core.handle({"POST", path, {}, body.dump()}, Millis(0));
}

bool stores(const std::string& fault) {
  return row_of_scripted(fault).commit != Commit::never;
}

using Command = rc::state::Command<Model, Sut>;

struct Post : Command {
  std::string key = *rc::gen::elementOf(kKeys);
  int which = *rc::gen::inRange(0, 3);

  void apply(Model& model) const override {
    ++model.journal;
    if (model.known(key)) return;  // a replay or a 422 changes nothing
    std::string fault = "none";
    if (const auto at = model.next_create_fault()) {
      fault = model.script[*at];
      model.script.erase(model.script.begin() + static_cast<std::ptrdiff_t>(*at));
    }
    // A create held in flight: run() sends a duplicate meanwhile, journaled too.
    if (row_of_scripted(fault).commit == Commit::after_hold) ++model.journal;
    if (stores(fault)) {
      model.keys[key] = {which, model.now};
      ++model.jobs;
    } else {
      model.keys.erase(key);  // an expired key stays forgotten
    }
  }

  void run(const Model& model, Sut& sut) const override {
    Decision decision = post(sut, key, which);
    if (model.known(key)) {
      const bool same = model.keys.at(key).payload == which;
      RC_ASSERT(decision.status == (same ? 200 : 422));
      if (same) {
        RC_ASSERT(json::parse(decision.body)["id"] == sut.ids.at(key));
        RC_ASSERT(decision.headers.find("Idempotent-Replayed")->second == "true");
      }
    } else {
      const std::string fault =
          model.next_create_fault() ? model.script[*model.next_create_fault()] : "none";
      const FaultRow& row = row_of_scripted(fault);
      RC_ASSERT(decision.pending_commit.has_value() == (row.commit == Commit::after_hold));
      const bool holds = row.parameter == FaultParameter::hold;  // the answer, or the commit
      RC_ASSERT(decision.delay == (holds ? Millis(std::chrono::seconds(3)) : Millis(0)));
      if (decision.pending_commit) {
        // A duplicate meanwhile is in flight; then the wait ends.
        RC_ASSERT(post(sut, key, which).status == 409);
        decision = sut.core.complete(*decision.pending_commit, Millis(0));
      } else {
        RC_ASSERT(decision.delivery == row.delivery);
      }
      if (row.status != 0) RC_ASSERT(decision.status == row.status);  // 0: no answer is sent
      if (row.parameter == FaultParameter::retry_after) {
        RC_ASSERT(decision.headers.find("Retry-After")->second == "2");
      }
      if (stores(fault)) {
        const json jobs = sut.core.jobs_json()["jobs"];
        RC_ASSERT(jobs.back()["key"] == key);
        sut.ids[key] = jobs.back()["id"];
        if (decision.status == 201 && decision.delivery == Delivery::respond) {
          RC_ASSERT(json::parse(decision.body)["id"] == sut.ids[key]);
        }
      }
    }
  }

  void show(std::ostream& out) const override {
    out << "POST /jobs key=" << key << " payload=" << which;
  }
};

struct Lookup : Command {
  std::string key = *rc::gen::elementOf(kKeys);

  void apply(Model& model) const override {
    ++model.journal;
    if (const auto at = model.next_lookup_fault()) {
      model.script.erase(model.script.begin() + static_cast<std::ptrdiff_t>(*at));
    }
  }

  void run(const Model& model, Sut& sut) const override {
    const Decision decision =
        sut.core.handle({"GET", "/jobs/by-idempotency-key/" + key, {}, ""}, Millis(0));
    if (const auto at = model.next_lookup_fault()) {
      const FaultRow& row = row_of_scripted(model.script[*at]);
      RC_ASSERT(decision.status == row.status);
      RC_ASSERT(decision.delivery == row.delivery);
    } else if (model.known(key)) {
      RC_ASSERT(decision.status == 200);
      RC_ASSERT(json::parse(decision.body)["id"] == sut.ids.at(key));
    } else {
      RC_ASSERT(decision.status == 404);
    }
  }

  void show(std::ostream& out) const override { out << "GET lookup key=" << key; }
};

struct InstallScript : Command {
  std::vector<std::string> faults = *rc::gen::container<std::vector<std::string>>(
      *rc::gen::inRange<std::size_t>(0, 5), rc::gen::elementOf(kFaults));

  void apply(Model& model) const override { model.script.assign(faults.begin(), faults.end()); }

  void run(const Model&, Sut& sut) const override {
    const Decision decision = control(sut, "/_test/faults", {{"faults", faults}});
    RC_ASSERT(decision.status == 200);
    RC_ASSERT(json::parse(decision.body)["faults"] == json(faults));
  }

  void show(std::ostream& out) const override { out << "install " << json(faults).dump(); }
};

struct AdvanceClock : Command {
  int hours_forward = *rc::gen::inRange(1, 30);

  void apply(Model& model) const override { model.now += hours(hours_forward); }

  void run(const Model&, Sut& sut) const override {
    RC_ASSERT(
        control(sut, "/_test/clock", {{"advance", std::to_string(hours_forward) + "h"}}).status ==
        200);
  }

  void show(std::ostream& out) const override { out << "advance " << hours_forward << "h"; }
};

struct Reset : Command {
  void apply(Model& model) const override { model = Model{.now = model.now}; }

  void run(const Model&, Sut& sut) const override {
    RC_ASSERT(control(sut, "/_test/reset", json::object()).status == 200);
    RC_ASSERT(sut.core.job_count() == 0u);
    sut.ids.clear();
  }

  void show(std::ostream& out) const override { out << "reset"; }
};

// After every command: the journal has one entry per data-plane request of the model.
struct CheckJournal : Command {
  void run(const Model& model, Sut& sut) const override {
    RC_ASSERT(sut.core.journal_json()["count"].get<std::size_t>() == model.journal);
    RC_ASSERT(sut.core.job_count() == model.jobs);
  }
  void show(std::ostream& out) const override { out << "check journal and jobs"; }
};

RC_GTEST_PROP(ProviderModel, TheCoreBehavesAsItsModel, ()) {
  Sut sut;
  rc::state::check(Model{}, sut,
                   rc::state::gen::execOneOfWithArgs<Post, Post, Post, Lookup, InstallScript,
                                                     AdvanceClock, Reset, CheckJournal>());
}

}  // namespace
}  // namespace retryproof::provider
