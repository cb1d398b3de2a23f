// Runs a function when the scope it was made in ends, by return or by exception: what must
// happen however a call ends (a breaker told how its admitted request ended). Until the
// standard library's std::scope_exit is in the compilers the project builds with.
#pragma once

#include <utility>

namespace retryproof {

template <class Function>
class ScopeExit {
 public:
  explicit ScopeExit(Function function) : function_(std::move(function)) {}
  ~ScopeExit() { function_(); }
  ScopeExit(const ScopeExit&) = delete;
  ScopeExit& operator=(const ScopeExit&) = delete;

 private:
  Function function_;
};

}  // namespace retryproof
