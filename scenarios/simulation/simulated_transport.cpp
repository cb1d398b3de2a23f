#include "scenarios/simulation/simulated_transport.hpp"

namespace retryproof::scenarios {
namespace {

using client::TransportFailure;
using client::TransportRequest;
using client::TransportResponse;

provider::HttpRequest to_provider(const TransportRequest& request) {
  provider::HttpRequest converted{
      request.method, client::percent_decode(request.path), {}, request.body};
  for (const auto& [name, value] : request.headers)
    converted.headers.emplace(name, value);
  return converted;
}

TransportResponse to_transport(const provider::Decision& decision) {
  TransportResponse response;
  switch (decision.delivery) {
    case provider::Delivery::drop:
    case provider::Delivery::reset:  // a client sees both as a lost connection
      response.failure = TransportFailure::closed;
      return response;
    case provider::Delivery::truncate:
      response.failure = TransportFailure::truncated;
      return response;
    case provider::Delivery::respond:
      break;
  }
  response.status = decision.status;
  response.body = decision.body;
  for (const auto& [name, value] : decision.headers)
    response.set_header(name, value);
  response.headers["content-type"] = decision.content_type;
  return response;
}

}  // namespace

SimulatedTransport::SimulatedTransport(provider::ProviderCore& provider,
                                       client::VirtualClock& clock)
    : provider_(provider),
      own_time_(std::make_unique<Timeline>(provider, clock)),
      time_(*own_time_) {}

SimulatedTransport::SimulatedTransport(provider::ProviderCore& provider, VirtualTime& time,
                                       int listener)
    : provider_(provider), time_(time), listener_(listener) {
  if (listener != 0) connect(listener);
}

void SimulatedTransport::connect(int client_port) {
  client_port_ = client_port;
  connected_ = false;
}

TransportResponse SimulatedTransport::send(const TransportRequest& request) {
  // Commits that came due while no client waited (between two invocations) come first.
  wait_until(time_.now());
  provider::HttpRequest arriving = to_provider(request);
  arriving.listener = listener_;
  arriving.client_port = client_port_;
  arriving.new_connection = client_port_ != 0 && !connected_;
  connected_ = true;
  const Millis sent = time_.now();
  provider::Decision decision = provider_.handle(arriving, sent);
  try {
    kill_if_due();
  } catch (const ClientKilled&) {
    // Killed as its request was taken: a held one still commits when its wait ends.
    if (decision.pending_commit) time_.hold(sent + decision.delay, *decision.pending_commit);
    throw;
  }
  if (decision.delay > Millis(0)) {
    if (decision.delay >= request.timeout) {
      // The client gives up first; a held request still commits when its wait ends.
      provider_.abandoned(decision.journal_seq, sent + request.timeout);
      if (decision.pending_commit) time_.hold(sent + decision.delay, *decision.pending_commit);
      wait_until(sent + request.timeout);
      return TransportResponse{.failure = TransportFailure::timeout};
    }
    wait_out_hold(decision, sent);
  }
  if (decision.pending_commit) {
    decision = provider_.complete(*decision.pending_commit, time_.now());
    kill_if_due();
  }
  return to_transport(decision);
}

void SimulatedTransport::pass_time(Millis duration) {
  wait_until(time_.now() + duration);
}

void SimulatedTransport::settle() {
  kill_when_ = nullptr;
  if (own_time_) own_time_->settle();
}

void SimulatedTransport::wait_until(Millis until) {
  time_.pass_until(until);
  kill_if_due();
}

// The client waits out a hold shorter than its timeout; commits due before its answer
// happen first. The kill condition is checked once the answer is decided, not while it
// waits; but a fleet client may reach its time limit meanwhile, or be woken early because its
// instance was killed (FleetScheduler::wake_now). Then it dies as a process does: its
// connection is gone, and the provider still commits when the wait ends.
void SimulatedTransport::wait_out_hold(const provider::Decision& decision, Millis sent) {
  try {
    time_.pass_until(sent + decision.delay);
    if (time_.now() < sent + decision.delay) throw ClientKilled{};
  } catch (const ClientKilled&) {
    if (decision.pending_commit) time_.hold(sent + decision.delay, *decision.pending_commit);
    throw;
  }
}

void SimulatedTransport::kill_if_due() const {
  if (kill_when_ && kill_when_()) throw ClientKilled{};
}

}  // namespace retryproof::scenarios
