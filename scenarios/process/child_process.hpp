// A program run as a child process, with its standard output and error captured, for
// external clients and for tests of the retryproof command itself. RAII: a child still
// running when its ChildProcess is destroyed is killed and reaped. Its standard input is
// /dev/null, or a pipe the parent writes lines to (a session client, docs/sessions.md).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace retryproof::scenarios {

struct ExitStatus {
  int code = 0;    // the exit code, when the child exited
  int signal = 0;  // the signal that ended it, or 0
  // The CPU time it used, user and system, with that of the descendants it waited for (a
  // shell's command): what one client process costs the machine.
  std::chrono::milliseconds cpu{0};
  bool exited() const { return signal == 0; }
  std::string describe() const;  // "exit code 3", "killed by SIGKILL"
};

// This program's own executable, to run its subcommands as separate processes.
std::filesystem::path this_executable();

// Where the child's standard input comes from.
enum class StandardInput { null_device, pipe };

class ChildProcess {
 public:
  // Starts argv[0] (looked up in PATH) with the parent's environment plus `environment`.
  // Throws std::runtime_error when it cannot be started.
  explicit ChildProcess(const std::vector<std::string>& argv,
                        const std::map<std::string, std::string>& environment = {},
                        StandardInput input = StandardInput::null_device);
  ~ChildProcess();

  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  // The next line of standard output (without the newline), or nothing if the deadline
  // passes or output ends first.
  std::optional<std::string> read_line(std::chrono::milliseconds deadline);

  // Waits for the child to end, collecting its output meanwhile. Nothing if the deadline
  // passes first (the child keeps running).
  std::optional<ExitStatus> wait(std::chrono::milliseconds deadline);

  // Signals the child and every process it started (they share its process group).
  void send_signal(int signal_number);

  // With StandardInput::pipe: writes `line` and a newline to the child's standard input.
  // False if the child is gone (EPIPE: no SIGPIPE reaches this process), its input was
  // closed, or the deadline passed with the pipe full (a child that does not read); after a
  // line written in part the input is closed, since the next line would be garbled.
  // Touches only the input, so one thread may write while another reads the output.
  bool write_line(const std::string& line,
                  std::chrono::milliseconds deadline = std::chrono::seconds(10));
  // Closes the child's standard input: it reads end of input. Idempotent.
  void close_input();

  // Waits up to `deadline` for the child to end, without reaping it or reading its output
  // (wait() reaps it). True once it has ended.
  bool await_end(std::chrono::milliseconds deadline) const;
  // False once standard output has reached its end (the child closed it, or ended).
  bool output_open() const { return stdout_fd_ >= 0; }

  pid_t pid() const { return pid_; }
  const std::string& standard_output() const { return stdout_; }  // what was read so far
  const std::string& standard_error() const { return stderr_; }

 private:
  // Waits up to `timeout` for output or the child's end, and reads what output there is.
  void pump(std::chrono::milliseconds timeout);

  pid_t pid_ = -1;
  int stdout_fd_ = -1;
  int stderr_fd_ = -1;
  int stdin_fd_ = -1;  // the write end of the input pipe, or -1
  int pidfd_ = -1;
  std::string stdout_;
  std::string stderr_;
  std::size_t stdout_consumed_ = 0;  // bytes already returned by read_line
  std::optional<ExitStatus> status_;
};

}  // namespace retryproof::scenarios
