// Invariants of the harness itself, checked in every build (release and the .deb as in
// debug): a broken one is a bug of ours, never something a client or its input did, and the
// run stops with an internal error that names it (exit status 70) rather than judging
// evidence that can no longer be trusted. Input errors are never invariants: they get a
// message that says what to fix.
#pragma once

#include <optional>
#include <source_location>
#include <stdexcept>
#include <string>
#include <string_view>

namespace retryproof {

// The exit status of a program whose invariant broke: sysexits' EX_SOFTWARE.
inline constexpr int kInternalErrorExit = 70;

class InternalError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

// "internal error: <what> (provider/journal_store.cpp:41); this is a bug in retryproof:
// please report it with the command that ran"
std::string internal_error_text(std::string_view what, const std::source_location& where);

// Throws InternalError when `holds` is false. `what` says what should have held, in words.
inline void check_invariant(bool holds, std::string_view what,
                            const std::source_location where = std::source_location::current()) {
  if (!holds) throw InternalError(internal_error_text(what, where));
}

// An InternalError caught where it cannot stop the run — a server's I/O thread answers its
// request with a 500 and serves on — is recorded here (the first one, for the process) and
// written to standard error at once; the run stops on it at its next step.
void record_internal_error(const InternalError& error);
std::optional<std::string> recorded_internal_error();
// Throws the recorded InternalError again, if there is one.
void throw_if_internal_error();

}  // namespace retryproof
