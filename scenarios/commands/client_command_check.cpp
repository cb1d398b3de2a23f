#include "scenarios/commands/client_command_check.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <system_error>
#include <vector>

#include "common/suggest.hpp"

namespace retryproof::scenarios {
namespace {

namespace fs = std::filesystem;

// Words /bin/sh (dash) runs itself: keywords and builtins. A command may start with any.
constexpr std::string_view kShellWords[] = {
    "!",     "{",      "}",      "case",  "do",       "done",    "elif",     "else",  "esac",
    "fi",    "for",    "if",     "in",    "then",     "until",   "while",    ".",     ":",
    "[",     "alias",  "bg",     "break", "cd",       "command", "continue", "echo",  "eval",
    "exec",  "exit",   "export", "false", "fg",       "getopts", "hash",     "jobs",  "kill",
    "local", "printf", "pwd",    "read",  "readonly", "return",  "set",      "shift", "test",
    "times", "trap",   "true",   "type",  "ulimit",   "umask",   "unalias",  "unset", "wait"};

bool is_shell_word(std::string_view word) {
  return std::ranges::find(kShellWords, word) != std::end(kShellWords);
}

// A word the shell passes through unchanged: no quoting, expansion, globbing, assignment,
// redirection or operator can be in it.
bool is_plain(std::string_view word) {
  return !word.empty() && word.front() != '~' && std::all_of(word.begin(), word.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return std::isalnum(u) != 0 || std::string_view("_./+@%,:-").find(c) != std::string_view::npos;
  });
}

bool is_executable_file(const fs::path& path) {
  std::error_code error;
  return fs::is_regular_file(path, error) && access(path.c_str(), X_OK) == 0;
}

std::vector<std::string> path_directories(std::string_view path_variable) {
  std::vector<std::string> directories;
  std::size_t start = 0;
  while (start <= path_variable.size()) {
    const std::size_t end = std::min(path_variable.find(':', start), path_variable.size());
    const std::string_view entry = path_variable.substr(start, end - start);
    directories.emplace_back(entry.empty() ? "." : entry);  // an empty entry is the cwd
    start = end + 1;
  }
  return directories;
}

// Programs on PATH, for "did you mean".
std::vector<std::string> programs_on(const std::vector<std::string>& directories) {
  std::vector<std::string> names;
  for (const auto& directory : directories) {
    std::error_code error;
    for (fs::directory_iterator it(directory, error), end; !error && it != end;
         it.increment(error)) {
      names.push_back(it->path().filename().string());
    }
  }
  return names;
}

std::optional<std::string> path_problem(const std::string& word) {
  std::error_code error;
  const fs::file_status status = fs::status(word, error);
  if (!fs::exists(status)) return word + " does not exist";
  if (fs::is_directory(status)) return word + " is a directory, not a program";
  if (access(word.c_str(), X_OK) != 0) {
    return word + " is not executable: chmod +x " + word +
           ", or name its interpreter (cmd:python3 " + word + " ...)";
  }
  return std::nullopt;
}

// Interpreters that run their first argument that is not an option as a script file, by the
// name of their program with any version cut off ("python3.11" is "python").
constexpr std::string_view kInterpreters[] = {"python", "node", "nodejs", "bash", "sh",
                                              "dash",   "zsh",  "ruby",   "perl"};

bool is_interpreter(const std::string& program) {
  std::string name = fs::path(program).filename().string();
  while (!name.empty() &&
         (std::isdigit(static_cast<unsigned char>(name.back())) != 0 || name.back() == '.'))
    name.pop_back();
  return std::ranges::find(kInterpreters, name) != std::end(kInterpreters);
}

// The word of `command` from `at` on, up to a blank; `at` moves past it.
std::string word_at(std::string_view command, std::size_t& at) {
  const std::size_t start = command.find_first_not_of(" \t", at);
  if (start == std::string_view::npos) {
    at = command.size();
    return "";
  }
  const std::size_t end = std::min(command.find_first_of(" \t\n", start), command.size());
  at = end;
  return std::string(command.substr(start, end - start));
}

std::optional<std::string> program_problem(const std::string& word,
                                           std::string_view path_variable) {
  if (word.find('/') != std::string::npos) return path_problem(word);
  const std::vector<std::string> directories = path_directories(path_variable);
  for (const auto& directory : directories) {
    if (is_executable_file(fs::path(directory) / word)) return std::nullopt;
  }
  return "\"" + word + "\" is not a program on PATH" + did_you_mean(word, programs_on(directories));
}

// `python3 nothere.py`: the program is there, and it would fail on every scenario. Only a
// word that looks like a path (a directory in it, or an extension) is taken for a script:
// `node inspect x.js` names a subcommand; an option (-m, -c, -u ...) leaves it to the program.
std::optional<std::string> script_problem(const std::string& program, const std::string& script) {
  const bool looks_like_a_path =
      script.find('/') != std::string::npos || fs::path(script).has_extension();
  if (!is_interpreter(program) || !is_plain(script) || script.front() == '-' || !looks_like_a_path)
    return std::nullopt;
  std::error_code error;
  if (fs::exists(script, error)) return std::nullopt;
  return script + " does not exist (the script " + program + " would run)";
}

}  // namespace

std::optional<std::string> command_problem(std::string_view command,
                                           std::string_view path_variable) {
  std::size_t at = 0;
  const std::string word = word_at(command, at);
  if (!is_plain(word) || is_shell_word(word)) return std::nullopt;
  if (auto problem = program_problem(word, path_variable)) return problem;
  return script_problem(word, word_at(command, at));
}

void require_client_program(const ClientChoice& client) {
  if (client.kind != ClientChoice::Kind::command) return;
  const char* path = std::getenv("PATH");
  if (const auto problem = command_problem(client.command, path ? path : "")) {
    throw std::runtime_error("--client " + client.describe() + ": " + *problem);
  }
}

}  // namespace retryproof::scenarios
