// Open-loop traffic: operations that arrive at a rate over a window, whether or not earlier
// ones have finished, spread over a fleet of service instances — the steady load a real
// outage meets, where a fleet's retries add to what keeps arriving (a metastable failure needs
// both). A scenario says
//
//   "traffic": {"rate": "20/s", "for": "60s", "arrival": "poisson", "instances": 10,
//               "recoverWithin": "10s"}
//
// and its operations are generated from the run's seed: the n-th arrives at a time drawn from
// exponential gaps (poisson) or at n/rate (uniform), is "<idPrefix>n" with the payload
// {"orderId": "order-n", "amount": 100 + n}, and is served by instance n mod instances. Each
// instance is one long-lived client: in the simulation one reference client's state (its retry
// budget) serves all its operations; over HTTP a session (docs/sessions.md).
//
// A service also dies under traffic, and its supervisor restarts it: "kills":
// [{"instance": 3, "at": "12s"}] sends instance 3 SIGKILL at 12 s, or at the first moment after
// it when the instance has an operation in flight (a kill of an idle process shows nothing).
// The instance starts again at once, with what it kept on disk and nothing it held in memory,
// and each operation it had not answered is run again: a rerun, which must find what the
// killed process did (crash-recovery judges it).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/json_node.hpp"
#include "common/millis.hpp"

namespace retryproof::scenarios {

struct Scenario;

enum class Arrival { poisson, uniform };

// One instance's death under traffic.
struct InstanceKill {
  int instance = 0;  // from 0, as Invocation::instance; the scenario counts from 1
  Millis at{0};      // from the traffic's start

  // "instance 3 at 12s", as reports name it.
  std::string describe() const;
};

struct TrafficPlan {
  double rate = 0;  // operations a second
  Millis length{0};
  Arrival arrival = Arrival::poisson;
  int instances = 1;
  // After its trigger (an outage or a capacity drop) ends, the fleet's success rate must be
  // back within this long (recovery, judged on goodput).
  Millis recover_within{10000};
  std::string id_prefix = "fulfillment:traffic-";
  std::vector<InstanceKill> kills;  // in the order given
};

// Reads "traffic". Throws FormatError with the JSON path.
TrafficPlan read_traffic(const JsonNode& node);

// The scenario with its traffic's operations and invocations, drawn from `seed`: a fleet of
// as many invocations as arrived, each with its start and its instance. A scenario without
// traffic comes back as it is.
Scenario expand_traffic(const Scenario& scenario, std::uint64_t seed);

}  // namespace retryproof::scenarios
