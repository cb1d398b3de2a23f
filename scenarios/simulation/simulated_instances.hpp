// The service instances of simulated traffic: what each one's process keeps in memory (its
// retry budget and circuit breaker), the operations it is running, and the kills the scenario
// plans for it ("traffic": {"kills": [...]}, scenarios/model/traffic.hpp). A kill ends the
// process: every operation it runs dies where it is (its client is woken if it waits), and
// the restarted process begins with fresh guards — a budget full again, a breaker closed —
// and the world's intent ledger, which is on disk. Touched only by the client that holds the
// fleet's baton, so it needs no lock.
#pragma once

#include <cstddef>
#include <memory>
#include <set>
#include <vector>

#include "client_under_test/instance_guards.hpp"
#include "common/millis.hpp"
#include "scenarios/model/traffic.hpp"

namespace retryproof::scenarios {

class FleetScheduler;

class SimulatedInstances {
 public:
  // `begun`: when traffic started, on the world's clock, which the kills' times count from.
  SimulatedInstances(const TrafficPlan& traffic, client::Mutant mutant, Millis begun);

  // The guards of the instance's current process. Those of a killed one stay alive: its
  // clients still unwind through them.
  client::InstanceGuards& guards(int instance) { return *lives_.at(index(instance)).back(); }
  // How many times the instance was killed so far: a client that began in another life has
  // lost its process.
  int life(int instance) const { return static_cast<int>(lives_.at(index(instance)).size()) - 1; }

  void began(int instance, std::size_t seat) { running_.at(index(instance)).insert(seat); }
  void ended(int instance, std::size_t seat) { running_.at(index(instance)).erase(seat); }

  // Kills the instance if a planned kill of it is due at `now` and it runs an operation: its
  // next life begins, and every client of the old one but `caller` is woken to die. The
  // caller, itself one of them (or the kill's own timer, which runs none), dies by its own
  // transport's kill condition. Whether it killed.
  bool kill_if_due(int instance, Millis now, FleetScheduler& scheduler, std::size_t caller);

 private:
  std::size_t index(int instance) const { return static_cast<std::size_t>(instance); }

  client::Mutant mutant_;
  std::vector<std::vector<std::unique_ptr<client::InstanceGuards>>> lives_;  // by instance
  std::vector<std::set<std::size_t>> running_;  // by instance: the seats of its clients
  std::vector<std::vector<Millis>> kills_due_;  // by instance: when each kill not done is due
};

}  // namespace retryproof::scenarios
