#include "scenarios/simulation/simulated_instances.hpp"

#include <algorithm>

#include "scenarios/simulation/fleet_scheduler.hpp"

namespace retryproof::scenarios {

SimulatedInstances::SimulatedInstances(const TrafficPlan& traffic, client::Mutant mutant,
                                       Millis begun)
    : mutant_(mutant),
      lives_(static_cast<std::size_t>(traffic.instances)),
      running_(lives_.size()),
      kills_due_(lives_.size()) {
  for (auto& lives : lives_)
    lives.push_back(std::make_unique<client::InstanceGuards>(mutant_));
  for (const InstanceKill& kill : traffic.kills)
    kills_due_.at(index(kill.instance)).push_back(begun + kill.at);
  for (auto& due : kills_due_)
    std::sort(due.begin(), due.end());
}

bool SimulatedInstances::kill_if_due(int instance, Millis now, FleetScheduler& scheduler,
                                     std::size_t caller) {
  std::vector<Millis>& due = kills_due_.at(index(instance));
  std::set<std::size_t>& running = running_.at(index(instance));
  if (due.empty() || due.front() > now || running.empty()) return false;
  due.erase(due.begin());
  lives_.at(index(instance)).push_back(std::make_unique<client::InstanceGuards>(mutant_));
  for (const std::size_t seat : running)
    if (seat != caller) scheduler.wake_now(seat);
  return true;
}

}  // namespace retryproof::scenarios
