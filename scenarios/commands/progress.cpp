#include "scenarios/commands/progress.hpp"

#include <unistd.h>

#include <ostream>

namespace retryproof::scenarios {
namespace {

constexpr std::string_view kEraseLine = "\r\x1b[K";

}  // namespace

ProgressPrinter::Mode ProgressPrinter::mode_for(int fd) {
  return isatty(fd) != 0 ? Mode::live : Mode::lines;
}

ProgressPrinter::ProgressPrinter(std::ostream& out, Mode mode, std::size_t total)
    : out_(out), mode_(mode), total_(total) {
  if (mode_ == Mode::live && total_ > 0) {
    status_ = "[0/" + std::to_string(total_) + "] running...";
    draw_status();
    out_.flush();
  }
}

ProgressPrinter::~ProgressPrinter() {
  clear();
}

void ProgressPrinter::finished(std::string_view mark, std::string_view name) {
  std::lock_guard lock(mutex_);
  ++done_;
  const std::string count = "[" + std::to_string(done_) + "/" + std::to_string(total_) + "]";
  if (mode_ == Mode::live) {
    out_ << kEraseLine << count << ' ' << mark << ' ' << name << '\n';
    if (done_ < total_) {
      status_ = count + " running...";
      draw_status();
    } else {
      status_shown_ = false;
    }
  } else {
    out_ << count << ' ' << mark << ' ' << name << '\n';
  }
  out_.flush();
}

void ProgressPrinter::status(std::string_view text) {
  std::lock_guard lock(mutex_);
  status_ = text;
  if (mode_ == Mode::live) {
    draw_status();
  } else {
    out_ << text << '\n';
  }
  out_.flush();
}

void ProgressPrinter::clear() {
  std::lock_guard lock(mutex_);
  if (mode_ == Mode::live && status_shown_) {
    out_ << kEraseLine;
    out_.flush();
  }
  status_shown_ = false;
}

void ProgressPrinter::draw_status() {
  out_ << kEraseLine << status_;
  status_shown_ = true;
}

}  // namespace retryproof::scenarios
