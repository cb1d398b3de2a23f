#include "provider/answer_gate.hpp"

namespace retryproof::provider {

void AnswerGate::close_when(std::function<bool()> condition) {
  std::lock_guard lock(mutex_);
  condition_ = std::move(condition);
}

void AnswerGate::pass(Decision decision, const RequestHandler::Answer& answer) {
  {
    std::lock_guard lock(mutex_);
    if (!closed_ && condition_ && condition_()) closed_ = true;
    if (closed_) {
      kept_.emplace_back(std::move(decision), answer);
      return;
    }
  }
  answer(std::move(decision));
}

void AnswerGate::open() {
  std::vector<std::pair<Decision, RequestHandler::Answer>> kept;
  {
    std::lock_guard lock(mutex_);
    condition_ = nullptr;
    closed_ = false;
    kept.swap(kept_);
  }
  // Outside the lock: an answer continues its connection, which may pass the next one.
  for (auto& [decision, answer] : kept)
    answer(std::move(decision));
}

bool AnswerGate::closed() const {
  std::lock_guard lock(mutex_);
  return closed_;
}

}  // namespace retryproof::provider
