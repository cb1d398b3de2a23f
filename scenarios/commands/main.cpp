// retryproof: one program, one subcommand per job.
// Exit status: 0 success, 1 the job found a problem (or could not run), 2 a usage error, 3 a
// run that could not judge what it was asked to (scenarios/reports/exit_status.hpp), 70 an
// invariant of retryproof's own broken (common/invariant.hpp).
#include <CLI/CLI.hpp>
#include <iostream>

#include "client_under_test/client_command.hpp"
#include "common/invariant.hpp"
#include "deliver/deliver_command.hpp"
#include "provider/provider_command.hpp"
#include "proxy/proxy_command.hpp"
#include "scenarios/commands/demo_command.hpp"
#include "scenarios/commands/explore_command.hpp"
#include "scenarios/commands/run_command.hpp"
#include "scenarios/commands/ui_snapshot_command.hpp"
#include "scenarios/commands/usage_errors.hpp"
#include "scenarios/judge/judge_command.hpp"
#include "scenarios/judge/verdicts_endpoint.hpp"
#include "scenarios/reports/exit_status.hpp"
#include "ui/ui_endpoints.hpp"

int main(int argc, char** argv) {
  CLI::App app{
      "retryproof: prove that code calling external APIs retries without duplicating side "
      "effects"};
  app.name("retryproof");  // not argv[0]: messages name the command, wherever it lives
  app.set_version_flag("--version", "retryproof " RETRYPROOF_VERSION);
  app.require_subcommand(1);
  int exit_code = 0;
  // The control plane's endpoints above the core, the same for the provider and the proxy:
  // the verdicts, and the live page with its assets.
  std::vector<retryproof::provider::ControlEndpoint> endpoints = retryproof::ui::ui_endpoints();
  endpoints.push_back(retryproof::scenarios::verdicts_endpoint());
  retryproof::provider::add_provider_command(app, exit_code, endpoints);
  retryproof::proxy::add_proxy_command(app, exit_code, endpoints);
  retryproof::scenarios::add_run_command(app, exit_code);
  retryproof::scenarios::add_explore_command(app, exit_code);
  retryproof::client::add_client_command(app, exit_code);
  retryproof::scenarios::add_demo_command(app, exit_code);
  retryproof::scenarios::add_judge_command(app, exit_code);
  retryproof::deliver::add_deliver_command(app, exit_code);
  retryproof::scenarios::add_ui_snapshot_command(app, exit_code);
  try {
    app.parse(argc, argv);  // runs the chosen subcommand's callback
  } catch (const CLI::Success& done) {
    return app.exit(done);  // --help, --version
  } catch (const CLI::ParseError& error) {
    std::cerr << retryproof::scenarios::usage_error_message(app, error) << '\n';
    return 2;
  } catch (const retryproof::InternalError& broken) {
    std::cerr << "retryproof: " << broken.what() << '\n';
    return retryproof::scenarios::kExitInternalError;
  }
  return exit_code;
}
