#include "scenarios/process/child_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <utility>

extern char** environ;

namespace retryproof::scenarios {
namespace {

using Clock = std::chrono::steady_clock;

std::chrono::milliseconds left_until(Clock::time_point deadline) {
  return std::max(std::chrono::milliseconds(0),
                  std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()));
}

std::chrono::milliseconds cpu_of(const rusage& usage) {
  const auto millis = [](const timeval& at) {
    return std::chrono::milliseconds(at.tv_sec * 1000 + at.tv_usec / 1000);
  };
  return millis(usage.ru_utime) + millis(usage.ru_stime);
}

ExitStatus to_exit_status(int raw, const rusage& usage) {
  ExitStatus status{.cpu = cpu_of(usage)};
  if (WIFSIGNALED(raw)) {
    status.signal = WTERMSIG(raw);
  } else {
    status.code = WEXITSTATUS(raw);
  }
  return status;
}

// posix_spawn's file actions, released on every path.
class SpawnActions {
 public:
  SpawnActions() { posix_spawn_file_actions_init(&actions_); }
  ~SpawnActions() { posix_spawn_file_actions_destroy(&actions_); }
  SpawnActions(const SpawnActions&) = delete;
  SpawnActions& operator=(const SpawnActions&) = delete;
  posix_spawn_file_actions_t* get() { return &actions_; }

 private:
  posix_spawn_file_actions_t actions_{};
};

// A pipe whose ends close with it, but for the one the parent takes.
class Pipe {
 public:
  Pipe() {
    std::array<int, 2> ends{};
    if (pipe2(ends.data(), O_CLOEXEC) != 0)
      throw std::runtime_error(std::string("pipe failed: ") + std::strerror(errno));
    read_end = ends[0];
    write_end = ends[1];
  }
  ~Pipe() {
    for (const int fd : {read_end, write_end}) {
      if (fd >= 0) close(fd);
    }
  }
  Pipe(const Pipe&) = delete;
  Pipe& operator=(const Pipe&) = delete;
  int take_read_end() { return std::exchange(read_end, -1); }
  int take_write_end() { return std::exchange(write_end, -1); }

  int read_end = -1;
  int write_end = -1;
};

// The parent's environment, each variable of `overrides` replacing its namesake.
std::vector<std::string> environment_of(const std::map<std::string, std::string>& overrides) {
  std::vector<std::string> entries;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string text(*entry);
    if (!overrides.contains(text.substr(0, text.find('=')))) entries.push_back(text);
  }
  for (const auto& [name, value] : overrides)
    entries.push_back(name + "=" + value);
  return entries;
}

// A write to a pipe whose reader is gone raises SIGPIPE, which would end the harness. While
// one write runs, SIGPIPE is blocked in this thread, and one raised meanwhile is taken
// before it is unblocked: the write sees EPIPE, and the process's signal handling is left
// as it was (as HttpTransport does for OpenSSL's writes).
class SigpipeHeld {
 public:
  SigpipeHeld() {
    sigemptyset(&pipe_);
    sigaddset(&pipe_, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_, &before_);
  }
  ~SigpipeHeld() {
    if (sigismember(&before_, SIGPIPE) == 1) return;  // blocked already: leave it so
    const timespec now{};
    while (sigtimedwait(&pipe_, nullptr, &now) == SIGPIPE) {
    }
    pthread_sigmask(SIG_SETMASK, &before_, nullptr);
  }
  SigpipeHeld(const SigpipeHeld&) = delete;
  SigpipeHeld& operator=(const SigpipeHeld&) = delete;

 private:
  sigset_t pipe_{};
  sigset_t before_{};
};

}  // namespace

std::filesystem::path this_executable() {
  return std::filesystem::read_symlink("/proc/self/exe");
}

std::string ExitStatus::describe() const {
  if (exited()) return "exit code " + std::to_string(code);
  const char* name = sigabbrev_np(signal);
  return std::string("killed by ") + (name ? std::string("SIG") + name : std::to_string(signal));
}

ChildProcess::ChildProcess(const std::vector<std::string>& argv,
                           const std::map<std::string, std::string>& environment,
                           StandardInput input) {
  if (argv.empty()) throw std::invalid_argument("ChildProcess: empty command");
  Pipe out;
  Pipe err;
  std::optional<Pipe> in;
  if (input == StandardInput::pipe) in.emplace();

  SpawnActions actions;
  posix_spawn_file_actions_adddup2(actions.get(), out.write_end, STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(actions.get(), err.write_end, STDERR_FILENO);
  if (in) {
    posix_spawn_file_actions_adddup2(actions.get(), in->read_end, STDIN_FILENO);
  } else {
    posix_spawn_file_actions_addopen(actions.get(), STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  }

  std::vector<std::string> env_storage = environment_of(environment);
  std::vector<char*> envp;
  for (auto& text : env_storage)
    envp.push_back(text.data());
  envp.push_back(nullptr);
  std::vector<std::string> arg_storage(argv);
  std::vector<char*> args;
  for (auto& text : arg_storage)
    args.push_back(text.data());
  args.push_back(nullptr);

  // Its own process group, so that signals reach whatever it starts too (a `sh -c`
  // command's children, say) and none outlives a kill.
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attributes, 0);
  const int failed =
      posix_spawnp(&pid_, args[0], actions.get(), &attributes, args.data(), envp.data());
  posix_spawnattr_destroy(&attributes);
  if (failed != 0)
    throw std::runtime_error("cannot start " + argv[0] + ": " + std::strerror(failed));
  // The child's ends close with the Pipes; the parent keeps its own.
  stdout_fd_ = out.take_read_end();
  stderr_fd_ = err.take_read_end();
  if (in) {
    stdin_fd_ = in->take_write_end();
    // Non-blocking, so that a child that stops reading cannot hold a write past its deadline.
    fcntl(stdin_fd_, F_SETFL, fcntl(stdin_fd_, F_GETFL) | O_NONBLOCK);
  }
  // Through syscall(): glibc 2.36's <sys/pidfd.h> lacks extern "C", so C++ cannot link it.
  pidfd_ = static_cast<int>(syscall(SYS_pidfd_open, pid_, 0));
}

ChildProcess::~ChildProcess() {
  if (!status_ && pid_ > 0) {
    kill(-pid_, SIGKILL);
    int raw = 0;
    waitpid(pid_, &raw, 0);
  }
  for (const int fd : {stdout_fd_, stderr_fd_, stdin_fd_, pidfd_}) {
    if (fd >= 0) close(fd);
  }
}

void ChildProcess::pump(std::chrono::milliseconds timeout) {
  // The pidfd becomes readable when the child ends, so a wait needs no polling loop.
  std::array<pollfd, 3> fds{
      {{stdout_fd_, POLLIN, 0}, {stderr_fd_, POLLIN, 0}, {pidfd_, POLLIN, 0}}};
  if (poll(fds.data(), fds.size(), static_cast<int>(timeout.count())) <= 0) return;
  std::array<char, 4096> buffer{};
  const auto drain = [&](int& fd, std::string& into, short revents) {
    if (fd < 0 || revents == 0) return;
    const ssize_t n = read(fd, buffer.data(), buffer.size());
    if (n > 0) {
      into.append(buffer.data(), static_cast<std::size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      close(fd);
      fd = -1;  // poll ignores negative descriptors
    }
  };
  drain(stdout_fd_, stdout_, fds[0].revents);
  drain(stderr_fd_, stderr_, fds[1].revents);
}

std::optional<std::string> ChildProcess::read_line(std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  while (true) {
    const auto newline = stdout_.find('\n', stdout_consumed_);
    if (newline != std::string::npos) {
      std::string line = stdout_.substr(stdout_consumed_, newline - stdout_consumed_);
      stdout_consumed_ = newline + 1;
      return line;
    }
    if (stdout_fd_ < 0 || Clock::now() >= deadline) return std::nullopt;
    pump(left_until(deadline));
  }
}

std::optional<ExitStatus> ChildProcess::wait(std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  while (!status_) {
    int raw = 0;
    rusage usage{};
    if (wait4(pid_, &raw, WNOHANG, &usage) == pid_) {
      status_ = to_exit_status(raw, usage);
      // Collect what the child wrote before it ended; a grandchild may hold the pipes
      // open, so take only what is already there.
      std::size_t before = 0;
      do {
        before = stdout_.size() + stderr_.size();
        pump(std::chrono::milliseconds(0));
      } while (stdout_.size() + stderr_.size() != before);
    } else if (Clock::now() >= deadline) {
      return std::nullopt;
    } else {
      pump(left_until(deadline));
    }
  }
  return status_;
}

void ChildProcess::send_signal(int signal_number) {
  if (!status_ && pid_ > 0) kill(-pid_, signal_number);  // the whole group
}

bool ChildProcess::write_line(const std::string& line, std::chrono::milliseconds timeout) {
  if (stdin_fd_ < 0) return false;
  const auto deadline = Clock::now() + timeout;
  const std::string bytes = line + '\n';
  std::size_t written = 0;
  const SigpipeHeld held;
  while (written < bytes.size()) {
    const ssize_t n = ::write(stdin_fd_, bytes.data() + written, bytes.size() - written);
    if (n > 0) {
      written += static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN && Clock::now() < deadline) {
      pollfd fd{stdin_fd_, POLLOUT, 0};
      poll(&fd, 1, static_cast<int>(std::max<long>(1, left_until(deadline).count())));
      continue;
    }
    // EPIPE (the child is gone), another error, or the deadline with the pipe full. Nothing
    // written yet leaves the input whole; a line written in part would garble the next.
    if (written > 0 || errno != EAGAIN) close_input();
    return false;
  }
  return true;
}

void ChildProcess::close_input() {
  if (stdin_fd_ >= 0) close(std::exchange(stdin_fd_, -1));
}

bool ChildProcess::await_end(std::chrono::milliseconds timeout) const {
  if (status_) return true;
  pollfd fd{pidfd_, POLLIN, 0};
  return poll(&fd, 1, static_cast<int>(timeout.count())) > 0;
}

}  // namespace retryproof::scenarios
