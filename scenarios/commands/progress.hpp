// Progress of long work on standard error, so that standard output stays the report: a line
// per finished item, in the order they finish, with a count ("[7/24] PASS commit-then-drop").
// On a terminal a status line below them ("[7/24] running ...", "shrinking: ...") is
// redrawn in place; elsewhere (a CI log, a file) there is no redrawing: finished lines only,
// and each status as a line of its own. Safe to call from several threads.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <mutex>
#include <string>
#include <string_view>

namespace retryproof::scenarios {

class ProgressPrinter {
 public:
  enum class Mode { live, lines };
  // live when `fd` is a terminal
  static Mode mode_for(int fd);

  ProgressPrinter(std::ostream& out, Mode mode, std::size_t total);
  ~ProgressPrinter();  // clears a live status line
  ProgressPrinter(const ProgressPrinter&) = delete;
  ProgressPrinter& operator=(const ProgressPrinter&) = delete;

  // One more item done: "[done/total] MARK name".
  void finished(std::string_view mark, std::string_view name);
  // What is going on now. Live: replaces the status line. Lines: printed as a line.
  void status(std::string_view text);
  // Clears a live status line (nothing else to do in lines mode).
  void clear();

 private:
  void draw_status();  // with the mutex held

  std::ostream& out_;
  Mode mode_;
  std::size_t total_;
  std::size_t done_ = 0;
  std::string status_;
  bool status_shown_ = false;
  std::mutex mutex_;
};

}  // namespace retryproof::scenarios
