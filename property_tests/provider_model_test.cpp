// The provider core against a small model of its contract (rc::state): random sequences
// of new posts, repeats, changed payloads, lookups, fault scripts of every kind, clock
// advances past the key TTL and resets. After each command: the status, the stored job,
// the replay's identity, the job count and the journal's length.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>
#include <rapidcheck/state.h>

#include <deque>
#include <map>
#include <optional>

#include "provider/provider_core.hpp"

namespace retryproof::provider {
namespace {

using nlohmann::json;
using std::chrono::hours;

constexpr Millis kKeyTtl = hours(24);
const std::vector<std::string> kKeys = {"key-a", "key-b", "key-c", "key-d"};
const std::vector<std::string> kFaults = {"none",
                                          "fail-before-commit",
                                          "commit-then-error",
                                          "commit-then-drop",
                                          "commit-then-reset",
                                          "drop-before-commit",
                                          "commit-then-truncate",
                                          "commit-then-500",
                                          "rate-limited:2",
                                          "commit-then-delay:3s",
                                          "delay-before-commit:3s",
                                          "lookup-unavailable"};

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
  // The fault the next new operation takes: the first script entry that is not a lookup's.
  std::optional<std::size_t> next_create_fault() const {
    for (std::size_t i = 0; i < script.size(); ++i) {
      if (script[i] != "lookup-unavailable") return i;
    }
    return std::nullopt;
  }
  std::optional<std::size_t> next_lookup_fault() const {
    for (std::size_t i = 0; i < script.size(); ++i) {
      if (script[i] == "lookup-unavailable") return i;
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
  return fault != "fail-before-commit" && fault != "drop-before-commit" &&
         !fault.starts_with("rate-limited");
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
    if (fault.starts_with("delay-before-commit")) ++model.journal;  // run() sends a duplicate
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
      if (decision.pending_commit) {
        RC_ASSERT(fault.starts_with("delay-before-commit"));
        // A duplicate meanwhile is in flight; then the wait ends.
        RC_ASSERT(post(sut, key, which).status == 409);
        decision = sut.core.complete(*decision.pending_commit, Millis(0));
      }
      const std::map<std::string, int> status = {{"none", 201},
                                                 {"fail-before-commit", 503},
                                                 {"commit-then-error", 503},
                                                 {"commit-then-500", 500},
                                                 {"rate-limited:2", 429},
                                                 {"commit-then-delay:3s", 201},
                                                 {"delay-before-commit:3s", 201},
                                                 {"commit-then-truncate", 201}};
      if (fault == "commit-then-drop" || fault == "drop-before-commit") {
        RC_ASSERT(decision.delivery == Delivery::drop);
      } else if (fault == "commit-then-reset") {
        RC_ASSERT(decision.delivery == Delivery::reset);
      } else {
        RC_ASSERT(decision.status == status.at(fault));
      }
      if (fault == "commit-then-truncate") RC_ASSERT(decision.delivery == Delivery::truncate);
      if (fault == "rate-limited:2") RC_ASSERT(decision.headers.find("Retry-After")->second == "2");
      if (fault == "commit-then-delay:3s") RC_ASSERT(decision.delay == std::chrono::seconds(3));
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
    if (model.next_lookup_fault()) {
      RC_ASSERT(decision.status == 503);
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
