// A cmd: client's command, checked before the first scenario, so that a program that is
// not there is one line now rather than a failure per scenario later. The command runs
// with /bin/sh -c, so only what is certain without running it is checked: the first word,
// when it is a plain word that names a program (a path, or a name looked up in PATH).
// A word with quotes, expansions, an assignment (FOO=1 cmd), shell syntax, or a shell
// builtin or keyword (cd, exec, if, ...) is left to the shell. After an interpreter
// (python3, node, bash, ...), the script it is given is checked too, when the word after it
// is a path (`python3 nothere.py`), not an option.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "scenarios/model/scenario.hpp"

namespace retryproof::scenarios {

// What is wrong with `command`'s program, as a sentence ("./client.py does not exist"), or
// nothing when it may run. `path_variable` is PATH as the shell will see it.
std::optional<std::string> command_problem(std::string_view command,
                                           std::string_view path_variable);

// For a cmd: client, its command_problem under this process's PATH as an error
// ("--client cmd:./x.py: ./x.py does not exist"); nothing for any other client.
void require_client_program(const ClientChoice& client);

}  // namespace retryproof::scenarios
