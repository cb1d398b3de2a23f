// A provider's capacity: how many requests a second it serves, and what happens to the rest.
// A service at saturation is a queue in front of a fixed amount of work: requests are served
// one after another in arrival order, each taking 1/rate of a second; a request waits for
// those ahead of it, so latency grows with the queue; one that would find the queue full, or
// would wait past the deadline, is shed at once with a 503 (`overloaded`). Work done for a
// client that stopped waiting is done all the same — which is how retries keep a service past
// capacity after the trigger that put it there is gone (a metastable failure: Bronson et al.,
// HotOS 2021). Plans give it as
//
//   "capacity": {"rate": "100/s", "queue": 200, "deadline": "2s",
//                "drops": [{"from": "10s", "for": "5s", "rate": "10/s"}]}
//
// A drop lowers the rate for its window (a lost replica, a slow disk): the trigger. Pure and
// deterministic: a request's wait is a function of the arrival times before it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "common/millis.hpp"

namespace retryproof::provider {

// A window of lower capacity.
struct CapacityDrop {
  Millis from{0};
  Millis until{0};  // exclusive
  double rate = 0;  // requests a second served in it

  friend bool operator==(const CapacityDrop&, const CapacityDrop&) = default;
};

struct Capacity {
  double rate = 0;        // requests a second served
  std::size_t queue = 0;  // most requests waiting behind the one served
  Millis deadline{0};     // a request that would wait longer is shed at once
  std::vector<CapacityDrop> drops;
  bool optional = false;  // a run need not meet it

  double rate_at(Millis at) const;  // the drop covering `at`, else `rate`

  friend bool operator==(const Capacity&, const Capacity&) = default;
};

// "100/s", "6000/m" or a number (a second's): requests per second. Throws
// std::invalid_argument naming `where` and the accepted forms.
double parse_rate(const nlohmann::json& value, const std::string& where);

// Reads a plan's "capacity". Throws std::invalid_argument naming the field
// ("capacity.drops[0].rate: ...").
Capacity parse_capacity(const nlohmann::json& entry);
nlohmann::json to_json(const Capacity& capacity);

// What the queue made of one request.
struct Queued {
  bool shed = false;      // refused at once: the queue is full or the wait too long
  std::size_t depth = 0;  // requests ahead of it at arrival (in service or waiting)
  Millis wait{0};         // until its service began; 0 when shed
  Millis served{0};       // its wait and its own service: when its answer can go out
};

class CapacityQueue {
 public:
  explicit CapacityQueue(Capacity capacity) : capacity_(std::move(capacity)) {}

  // A request arriving at `at` (never earlier than the one before it).
  Queued admit(Millis at);

  const Capacity& capacity() const { return capacity_; }

 private:
  Capacity capacity_;
  // When each admitted request still in the system leaves it, in microseconds (a request
  // takes 1/rate of a second, rarely a whole number of milliseconds), oldest first.
  std::deque<std::int64_t> leaving_;
};

}  // namespace retryproof::provider
