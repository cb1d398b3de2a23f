#include "scenarios/model/traffic.hpp"

#include <cmath>

#include "common/duration.hpp"
#include "common/splitmix64.hpp"
#include "provider/capacity.hpp"
#include "scenarios/model/scenario.hpp"

namespace retryproof::scenarios {
namespace {

// The most operations one run's traffic may generate: 10,000 clients at 1,000 a second is the
// largest the simulation is asked to run.
constexpr double kMostOperations = 100'000;

// A uniform draw in (0, 1]: never 0, whose logarithm has no exponential gap.
double unit_interval(SplitMix64& random) {
  return (static_cast<double>(random.next() >> 11) + 1.0) * 0x1.0p-53;
}

std::vector<InstanceKill> read_kills(const JsonNode& node, const TrafficPlan& traffic) {
  std::vector<InstanceKill> kills;
  for (std::size_t i = 0; i < node.array().size(); ++i) {
    const JsonNode kill = node.item(i);
    kill.object({"instance", "at"});
    if (!kill.has("instance"))
      kill.fail("a kill needs an \"instance\", from 1 to the traffic's instances");
    if (!kill.has("at")) kill.fail("a kill needs an \"at\", such as \"12s\"");
    const int instance = kill.field("instance").integer(1, traffic.instances);
    const Millis at = kill.field("at").duration();
    if (at >= traffic.length) {
      kill.field("at").fail("a kill comes while traffic lasts, before its \"for\" (" +
                            format_duration(traffic.length) + ")");
    }
    kills.push_back({instance - 1, at});
  }
  return kills;
}

}  // namespace

std::string InstanceKill::describe() const {
  return "instance " + std::to_string(instance + 1) + " at " + format_duration(at);
}

TrafficPlan read_traffic(const JsonNode& node) {
  node.object({"rate", "for", "arrival", "instances", "recoverWithin", "idPrefix", "kills"});
  TrafficPlan traffic;
  if (!node.has("rate")) node.fail("traffic needs a \"rate\", such as \"20/s\"");
  try {
    traffic.rate = provider::parse_rate(node.field("rate").value, node.field("rate").path);
  } catch (const std::invalid_argument& error) {
    throw FormatError(error.what());
  }
  if (!node.has("for")) node.fail("traffic needs a \"for\", such as \"60s\"");
  traffic.length = node.field("for").duration();
  if (traffic.length <= Millis(0)) node.field("for").fail("traffic lasts longer than 0ms");
  if (traffic.rate * static_cast<double>(traffic.length.count()) / 1000.0 > kMostOperations) {
    node.fail("traffic of rate times length above 100000 operations is more than one run holds");
  }
  if (node.has("arrival")) {
    const std::string arrival = node.field("arrival").string();
    if (arrival != "poisson" && arrival != "uniform")
      node.field("arrival").fail("expected \"poisson\" or \"uniform\"");
    traffic.arrival = arrival == "poisson" ? Arrival::poisson : Arrival::uniform;
  }
  if (node.has("instances")) traffic.instances = node.field("instances").integer(1, 1000);
  if (node.has("recoverWithin")) traffic.recover_within = node.field("recoverWithin").duration();
  if (node.has("idPrefix")) traffic.id_prefix = node.field("idPrefix").non_empty_string();
  if (node.has("kills")) traffic.kills = read_kills(node.field("kills"), traffic);
  return traffic;
}

Scenario expand_traffic(const Scenario& scenario, std::uint64_t seed) {
  if (!scenario.traffic) return scenario;
  const TrafficPlan& traffic = *scenario.traffic;
  Scenario expanded = scenario;
  expanded.operations.clear();
  expanded.invocations.clear();
  // Its own stream of the seed: the arrivals stay as they are whatever else draws from it.
  SplitMix64 random(seed ^ 0x7472616666696355ULL);
  const double mean_gap_ms = 1000.0 / traffic.rate;
  double at = 0;
  for (int n = 1;; ++n) {
    at = traffic.arrival == Arrival::uniform ? (n - 1) * mean_gap_ms
                                             : at - mean_gap_ms * std::log(unit_interval(random));
    if (at >= static_cast<double>(traffic.length.count())) break;
    const std::string number = std::to_string(n);
    expanded.operations.push_back(
        {traffic.id_prefix + number, {{"orderId", "order-" + number}, {"amount", 100 + n}}});
    Invocation invocation{expanded.operations.back().id};
    invocation.starts_at = Millis(static_cast<Millis::rep>(at));
    invocation.instance = (n - 1) % traffic.instances;
    expanded.invocations.push_back(std::move(invocation));
  }
  expanded.fleet.concurrency = static_cast<int>(expanded.invocations.size());
  return expanded;
}

}  // namespace retryproof::scenarios
