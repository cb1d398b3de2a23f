#include "client_under_test/circuit_breaker.hpp"

#include <charconv>
#include <stdexcept>

#include "common/duration.hpp"

namespace retryproof::client {

std::string BreakerSettings::describe() const {
  return std::to_string(failures) + "/" + format_duration(open_for);
}

BreakerSettings parse_breaker(std::string_view text) {
  const std::string expected =
      "breaker=" + std::string(text) +
      ": failures in a row that open it (1 to 1000), then how long it stays open before a "
      "probe, such as 5/2s";
  const std::size_t slash = text.find('/');
  if (slash == std::string_view::npos) throw std::invalid_argument(expected);
  BreakerSettings settings;
  const std::string_view count = text.substr(0, slash);
  const auto [end, error] =
      std::from_chars(count.data(), count.data() + count.size(), settings.failures);
  if (error != std::errc{} || end != count.data() + count.size() || settings.failures < 1 ||
      settings.failures > 1000) {
    throw std::invalid_argument(expected);
  }
  try {
    settings.open_for = parse_duration(text.substr(slash + 1));
  } catch (const std::invalid_argument&) {
    throw std::invalid_argument(expected);
  }
  if (settings.open_for < Millis(1)) throw std::invalid_argument(expected);
  return settings;
}

CircuitBreaker::CircuitBreaker(BreakerSettings settings, BreakerFlaw flaw)
    : settings_(settings), flaw_(flaw) {
  if (settings.failures < 1) throw std::invalid_argument("a breaker opens after 1 failure or more");
  if (settings.open_for < Millis(1))
    throw std::invalid_argument("a breaker stays open 1 ms or more");
}

Admission CircuitBreaker::admit(Millis now) {
  std::lock_guard lock(mutex_);
  if (state_ == State::closed) return Admission::send;
  if (state_ == State::half_open || flaw_ == BreakerFlaw::never_probes ||
      now - opened_at_ < settings_.open_for) {
    return Admission::refuse;
  }
  state_ = State::half_open;
  return Admission::probe;
}

void CircuitBreaker::record(Answered answer, Millis now) {
  std::lock_guard lock(mutex_);
  if (state_ == State::open) return;  // a straggler's, sent before it opened
  if (answer == Answered::served) {
    // The never-closes bug: the probe's success opens it again for another open_for.
    if (state_ == State::half_open && flaw_ == BreakerFlaw::never_closes) return open_at(now);
    state_ = State::closed;
    in_a_row_ = 0;
    return;
  }
  if (state_ == State::closed && ++in_a_row_ < settings_.failures) return;
  open_at(now);  // the failures in a row reached the threshold, or the probe failed
}

void CircuitBreaker::open_at(Millis now) {
  state_ = State::open;
  opened_at_ = now;
  ++opened_;
}

void CircuitBreaker::release_probe() {
  std::lock_guard lock(mutex_);
  if (state_ == State::half_open) state_ = State::open;  // opened_at_ kept: due at once
}

bool CircuitBreaker::open() const {
  std::lock_guard lock(mutex_);
  return state_ != State::closed;
}

int CircuitBreaker::opened() const {
  std::lock_guard lock(mutex_);
  return opened_;
}

}  // namespace retryproof::client
