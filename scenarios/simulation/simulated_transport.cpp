#include "scenarios/simulation/simulated_transport.hpp"

#include <algorithm>
#include <cassert>

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

TransportResponse SimulatedTransport::send(const TransportRequest& request) {
  complete_due(clock_.now());
  provider::Decision decision = provider_.handle(to_provider(request), clock_.now());
  kill_if_due();
  if (decision.delay > Millis(0)) {
    if (decision.delay >= request.timeout) {
      // The client gives up first; a held request still commits when its wait ends.
      provider_.abandoned(decision.journal_seq, clock_.now() + request.timeout);
      if (decision.pending_commit) {
        held_.push_back({clock_.now() + decision.delay, *decision.pending_commit});
      }
      pass_time(request.timeout);
      return TransportResponse{.failure = TransportFailure::timeout};
    }
    clock_.advance(decision.delay);
  }
  if (decision.pending_commit) {
    decision = provider_.complete(*decision.pending_commit, clock_.now());
    kill_if_due();
  }
  return to_transport(decision);
}

void SimulatedTransport::pass_time(Millis duration) {
  clock_.advance(duration);
  complete_due(clock_.now());
}

void SimulatedTransport::settle() {
  kill_when_ = nullptr;
  for (const auto& held : held_)
    clock_.advance(std::max(Millis(0), held.due - clock_.now()));
  complete_due(clock_.now());
}

void SimulatedTransport::complete_due(Millis until) {
  // In due order, as the real provider's waits would end.
  std::sort(held_.begin(), held_.end(),
            [](const HeldCommit& a, const HeldCommit& b) { return a.due < b.due; });
  auto due_end = held_.begin();
  for (; due_end != held_.end() && due_end->due <= until; ++due_end) {
    provider_.complete(due_end->pending_commit, due_end->due);
  }
  held_.erase(held_.begin(), due_end);
  assert(std::all_of(held_.begin(), held_.end(),
                     [&](const HeldCommit& held) { return held.due > until; }));
  kill_if_due();
}

void SimulatedTransport::kill_if_due() const {
  if (kill_when_ && kill_when_()) throw ClientKilled{};
}

}  // namespace retryproof::scenarios
