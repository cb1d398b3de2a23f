#include "scenarios/simulation/fleet_scheduler.hpp"

#include <algorithm>
#include <thread>

namespace retryproof::scenarios {

// A client's place in the fleet: its thread, when it must stop, and its view of time.
class FleetScheduler::Seat final : public VirtualTime {
 public:
  Seat(FleetScheduler& scheduler, std::size_t seat_index, Millis stop_at)
      : index(seat_index), deadline(stop_at), scheduler_(scheduler) {}

  Millis now() override { return scheduler_.timeline_.now(); }
  void pass_until(Millis until) override { scheduler_.park(*this, until); }
  void hold(Millis due, std::uint64_t pending_commit) override {
    scheduler_.timeline_.hold(due, pending_commit);
  }

  const std::size_t index;
  const Millis deadline;
  std::condition_variable turn;  // the client waits on it for the baton
  bool ended = false;
  std::thread thread;

 private:
  FleetScheduler& scheduler_;
};

Millis FleetTimes::due(std::size_t index) const {
  if (!starts.empty()) return starts.at(index);
  return start_spread * static_cast<Millis::rep>(index) / static_cast<Millis::rep>(count);
}

FleetScheduler::FleetScheduler(Timeline& timeline) : timeline_(timeline) {}
FleetScheduler::~FleetScheduler() = default;  // run() leaves no seat behind

void FleetScheduler::run(const FleetTimes& times, const Client& client) {
  seats_.clear();
  seats_.resize(times.count);
  wakes_.clear();
  asked_ = 0;
  stopping_ = false;
  error_ = nullptr;
  const Millis begun = timeline_.now();
  std::size_t next = 0;     // the next client to be given a start
  std::size_t running = 0;  // started, or given a start and waiting for it
  try {
    while (!error_) {
      const std::size_t at_once =
          times.starts.empty() ? static_cast<std::size_t>(times.concurrency) : times.count;
      while (next < times.count && running < at_once) {
        const Millis due = begun + times.due(next);
        wakes_.emplace(std::max(timeline_.now(), due), asked_++, next++);
        ++running;
      }
      if (wakes_.empty()) break;
      const auto [at, asked, index] = *wakes_.begin();
      wakes_.erase(wakes_.begin());
      timeline_.pass_until(at);  // what comes due before the client wakes commits first
      if (!seats_[index]) {      // its start: an ended client is never woken again
        auto seat = std::make_unique<Seat>(*this, index, timeline_.now() + times.time_limit);
        seat->thread = std::thread([this, &seat = *seat, &client] { play(seat, client); });
        seats_[index] = std::move(seat);  // only once its thread runs: stop_all resumes it
      }
      resume(*seats_[index]);
      if (seats_[index]->ended) {
        end(index);
        --running;
      }
    }
  } catch (...) {
    stop_all();  // the scheduler's own failure (a provider's): no thread may be left parked
    throw;
  }
  if (error_) {
    stop_all();
    std::rethrow_exception(error_);
  }
}

void FleetScheduler::park(Seat& seat, Millis until) {
  std::unique_lock lock(mutex_);
  // Even when no time passes it hands the baton on: the others of this moment go first. It
  // wakes at its time limit at the latest, to be stopped there as a process would be.
  wakes_.emplace(std::min(std::max(until, timeline_.now()), seat.deadline), asked_++, seat.index);
  holder_ = kScheduler;
  baton_back_.notify_one();
  seat.turn.wait(lock, [&] { return holder_ == seat.index; });
  if (stopping_ || timeline_.now() >= seat.deadline) throw ClientKilled{};
}

void FleetScheduler::wake_now(std::size_t index) {
  std::lock_guard lock(mutex_);
  if (index >= seats_.size() || !seats_[index] || seats_[index]->ended) return;
  const auto parked = std::find_if(wakes_.begin(), wakes_.end(),
                                   [&](const auto& wake) { return std::get<2>(wake) == index; });
  if (parked == wakes_.end()) return;  // not waiting: the one that runs
  wakes_.erase(parked);
  wakes_.emplace(timeline_.now(), asked_++, index);
}

void FleetScheduler::play(Seat& seat, const Client& client) {
  {
    std::unique_lock lock(mutex_);
    seat.turn.wait(lock, [&] { return holder_ == seat.index; });
  }
  try {
    client(seat.index, seat);
  } catch (const ClientKilled&) {
    // Stopped at its time limit, or because the fleet is stopping: an end like any other.
  } catch (...) {
    if (!error_) error_ = std::current_exception();
  }
  std::lock_guard lock(mutex_);
  seat.ended = true;
  holder_ = kScheduler;
  baton_back_.notify_one();
}

void FleetScheduler::resume(Seat& seat) {
  std::unique_lock lock(mutex_);
  holder_ = seat.index;
  seat.turn.notify_one();
  baton_back_.wait(lock, [&] { return holder_ == kScheduler; });
}

void FleetScheduler::end(std::size_t index) {
  seats_[index]->thread.join();
  seats_[index].reset();  // a thousand clients need not keep a thousand threads' worth
}

// Resumes every client still parked with stopping_ set: each is thrown a ClientKilled and
// ends, so that no thread outlives run().
void FleetScheduler::stop_all() {
  stopping_ = true;
  wakes_.clear();
  for (std::size_t index = 0; index < seats_.size(); ++index) {
    if (!seats_[index]) continue;
    while (!seats_[index]->ended)
      resume(*seats_[index]);
    end(index);
  }
}

}  // namespace retryproof::scenarios
