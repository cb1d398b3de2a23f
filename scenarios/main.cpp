// retryproof: one program, one subcommand per job.
#include <CLI/CLI.hpp>

#include "demo_command.hpp"
#include "provider_command.hpp"

int main(int argc, char** argv) {
  CLI::App app{
      "retryproof: prove that code calling external APIs retries without duplicating side "
      "effects"};
  app.require_subcommand(1);
  int exit_code = 0;
  retryproof::provider::add_provider_command(app, exit_code);
  retryproof::scenarios::add_demo_command(app, exit_code);
  CLI11_PARSE(app, argc, argv);
  return exit_code;
}
