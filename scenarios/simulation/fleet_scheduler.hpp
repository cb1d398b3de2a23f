// A fleet of simulated clients in virtual time, deterministically. The reference client and
// the mutants are synchronous code (they call send, now and sleep), so each client runs on a
// thread of its own — but only the one holding the baton runs. A client that waits (a
// sleep, a held answer, its timeout) says when it wakes and hands the baton back; the
// scheduler lets the timeline commit what comes due before then, and resumes the client that
// wakes first. Clients that wake at one moment go in the order they asked (the first starts
// in index order): a request takes no virtual time, but it hands the baton on too, so a
// client that retries at once queues behind the others of that moment instead of running
// through its whole budget before they send anything — as over a network, where its retry
// takes a round trip. The order is a function of virtual times and of the order clients
// asked alone, so a seed replays byte for byte; and no two clients ever touch the provider,
// the intent ledger or the timeline at once, so they need no locks of their own.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <tuple>
#include <vector>

#include "common/millis.hpp"
#include "scenarios/simulation/virtual_time.hpp"

namespace retryproof::scenarios {

// When a fleet's clients start and how long each may run.
struct FleetTimes {
  std::size_t count = 0;
  int concurrency = 1;       // at most this many at once; the next starts when one ends
  Millis start_spread{0};    // the i-th is due i * start_spread / count after the first
  Millis time_limit{20000};  // from each client's start; then it is stopped (ClientKilled)
  // Open-loop traffic: when each is due, from the first's start, whatever is still running
  // (then `concurrency` and `start_spread` are not read). Empty: by the spread.
  std::vector<Millis> starts = {};

  Millis due(std::size_t index) const;
};

class FleetScheduler {
 public:
  // One client's whole run, on its own thread, seeing time through `time`. A ClientKilled
  // out of `time` (its time limit) may be caught by it or let out: either ends the client.
  using Client = std::function<void(std::size_t index, VirtualTime& time)>;

  explicit FleetScheduler(Timeline& timeline);
  ~FleetScheduler();
  FleetScheduler(const FleetScheduler&) = delete;
  FleetScheduler& operator=(const FleetScheduler&) = delete;

  // Runs every client to its end, starting from the timeline's now. Commits still held when
  // the last client ends stay on the timeline. If a client lets out any other exception, the
  // others are stopped and the first such exception is rethrown.
  void run(const FleetTimes& times, const Client& client);

  // Called by the client that runs (it holds the baton): the client of seat `index`, if it is
  // running and waiting, wakes now, before anyone later, as SIGKILL ends a process whatever it
  // waits for. Its wait returns early; what it does then is its transport's to decide (a kill
  // condition, simulated_transport.hpp). A seat not started, or ended, is left alone.
  void wake_now(std::size_t index);

 private:
  class Seat;

  void park(Seat& seat, Millis until);  // on a client's thread
  void play(Seat& seat, const Client& client);
  void resume(Seat& seat);  // on the scheduler's thread: until the seat hands the baton back
  void end(std::size_t index);
  void stop_all();

  Timeline& timeline_;
  std::mutex mutex_;                    // guards the baton; the baton guards the rest
  std::condition_variable baton_back_;  // the scheduler waits on it
  std::size_t holder_ = kScheduler;     // who may run: a client's index, or the scheduler
  // (when, order asked, index): clients parked or due to start, the first to wake first.
  std::set<std::tuple<Millis, std::uint64_t, std::size_t>> wakes_;
  std::uint64_t asked_ = 0;
  std::vector<std::unique_ptr<Seat>> seats_;  // by index; empty before start, after end
  bool stopping_ = false;
  std::exception_ptr error_;

  static constexpr std::size_t kScheduler = static_cast<std::size_t>(-1);
};

}  // namespace retryproof::scenarios
