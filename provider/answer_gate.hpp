// Answers held back, for a harness that must act before a client reads them. The process
// world kills a client at its kill point (after its N-th request, after a commit) with a real
// SIGKILL; without a gate the client may read the answer of the request that reached the
// point, and act on it, before the signal lands, which the simulated client (killed before
// it sees that answer) never does. Closed once `close_when` holds after a request was decided,
// the gate keeps that answer and every later one until open(): the kill lands first, and what
// the dead client had written but the provider had not read yet is read only after open().
// Thread-safe: the I/O threads pass answers through it while the harness opens it.
#pragma once

#include <functional>
#include <mutex>
#include <utility>
#include <vector>

#include "provider/http_types.hpp"
#include "provider/request_handler.hpp"

namespace retryproof::provider {

class AnswerGate {
 public:
  // From now on, closes as soon as `condition()` holds when an answer passes (the answer
  // that made it hold is the first kept); an empty function never closes it.
  void close_when(std::function<bool()> condition);
  // Delivers `decision` through `answer` at once, or keeps both until open().
  void pass(Decision decision, const RequestHandler::Answer& answer);
  // Disarms the gate and delivers every answer kept, in the order they came.
  void open();
  bool closed() const;

 private:
  mutable std::mutex mutex_;
  std::function<bool()> condition_;
  bool closed_ = false;
  std::vector<std::pair<Decision, RequestHandler::Answer>> kept_;
};

}  // namespace retryproof::provider
