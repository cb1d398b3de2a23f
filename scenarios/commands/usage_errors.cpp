#include "scenarios/commands/usage_errors.hpp"

#include <algorithm>
#include <vector>

#include "common/suggest.hpp"

namespace retryproof::scenarios {
namespace {

// "retryproof" or "retryproof run": the command being parsed when the error came.
const CLI::App* innermost(const CLI::App& app) {
  const CLI::App* at = &app;
  for (bool deeper = true; deeper;) {
    deeper = false;
    for (const CLI::App* sub : at->get_subcommands()) {
      at = sub;
      deeper = true;
      break;
    }
  }
  return at;
}

std::string command_path(const CLI::App* app) {
  std::string path = app->get_name();
  for (const CLI::App* parent = app->get_parent(); parent; parent = parent->get_parent())
    path = parent->get_name() + " " + path;
  return path;
}

std::vector<std::string> option_names(const CLI::App* app) {
  std::vector<std::string> names;
  for (const CLI::Option* option : app->get_options()) {
    for (const std::string& name : option->get_lnames())
      names.push_back("--" + name);
    for (const std::string& name : option->get_snames())
      names.push_back("-" + name);
  }
  return names;
}

std::vector<std::string> subcommand_names(const CLI::App* app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app->get_subcommands({}))
    names.push_back(sub->get_name());
  return names;
}

bool looks_like_option(const std::string& word) {
  return word.size() > 1 && word.front() == '-';
}

std::string see_help(const std::string& command) {
  return "; see " + command + " --help";
}

// What `command` did not understand among the words left over, as one line.
std::string leftover_message(const CLI::App* app, const std::vector<std::string>& leftover) {
  const std::string command = command_path(app);
  for (const std::string& word : leftover) {
    if (looks_like_option(word)) {
      const std::string option = word.substr(0, word.find('='));
      return command + ": unknown option \"" + option + "\"" +
             did_you_mean(option, option_names(app)) + see_help(command);
    }
  }
  const std::vector<std::string> commands = subcommand_names(app);
  if (!commands.empty() && app->get_subcommands().empty()) {
    return command + ": unknown command \"" + leftover.front() + "\"" +
           did_you_mean(leftover.front(), commands) + see_help(command);
  }
  return command + ": unexpected argument \"" + leftover.front() + "\"" + see_help(command);
}

}  // namespace

std::string usage_error_message(const CLI::App& app, const CLI::ParseError& error) {
  const CLI::App* at = innermost(app);
  const std::vector<std::string> leftover = at->remaining();
  const bool no_command = at == &app && dynamic_cast<const CLI::RequiredError*>(&error) &&
                          app.get_subcommands().empty();
  // An option no one knows comes first, whatever CLI11 threw: it checks required options
  // before extras, so `proxy --upstrem URL` would otherwise say "--upstream is required".
  const bool unknown_option = std::any_of(leftover.begin(), leftover.end(), looks_like_option);
  if (!leftover.empty() &&
      (no_command || unknown_option || dynamic_cast<const CLI::ExtrasError*>(&error))) {
    return leftover_message(at, leftover);
  }
  if (no_command) {
    std::string list;
    const std::vector<std::string> commands = subcommand_names(&app);
    for (std::size_t i = 0; i < commands.size(); ++i)
      list += (i == 0 ? "" : i + 1 == commands.size() ? " or " : ", ") + commands[i];
    return app.get_name() + ": a command is required: " + list + see_help(app.get_name());
  }
  return command_path(at) + ": " + error.what() + see_help(command_path(at));
}

}  // namespace retryproof::scenarios
