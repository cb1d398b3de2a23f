#include "scenarios/commands/run_command.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <thread>

#include "common/invariant.hpp"
#include "scenarios/commands/catalog_location.hpp"
#include "scenarios/commands/client_command_check.hpp"
#include "scenarios/commands/progress.hpp"
#include "scenarios/commands/time_scale_option.hpp"
#include "scenarios/model/on_shape.hpp"
#include "scenarios/process/child_process.hpp"
#include "scenarios/process/clock_probe.hpp"
#include "scenarios/process/process_world.hpp"
#include "scenarios/reports/matrix.hpp"
#include "scenarios/reports/report_files.hpp"
#include "scenarios/reports/reports.hpp"
#include "scenarios/reports/text.hpp"
#include "scenarios/reports/view.hpp"

namespace retryproof::scenarios {
namespace {

struct RunCommandOptions {
  std::vector<std::string> paths;
  std::string client = "reference";
  std::uint64_t seed = 0;
  int jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::string filter;
  std::map<std::string, std::string> reports;  // format option -> file
  std::string client_policy;
  std::string fail_on = "policy";
  std::string inconclusive = "not-met";
  bool mutants = false;
  int time_scale = 1;
  std::string api;  // every scenario on this API's wire (--api), when given
  bool tls = false;
  bool simulate = false;
  bool sessions = false;
};

Colour terminal_colour() {
  return isatty(STDOUT_FILENO) != 0 ? Colour::on : Colour::off;
}

// Runs every scenario on `jobs` threads; results keep the catalog's order, and each is
// shown on standard error as it finishes. A fleet runs alone: its clients are the machine's
// load, and another scenario's processes beside them would blur the timing its verdicts
// measure. A scenario that cannot run (its provider cannot listen, say) stops the run with
// an error naming it, once every worker has finished.
std::vector<ScenarioResult> run_all(const std::vector<Scenario>& scenarios,
                                    const RunOptions& options, int jobs) {
  std::vector<ScenarioResult> results(scenarios.size());
  ProgressPrinter progress(std::cerr, ProgressPrinter::mode_for(STDERR_FILENO), scenarios.size());
  std::atomic<std::size_t> next{0};
  std::mutex failure_mutex;
  std::exception_ptr failure;
  std::shared_mutex machine;  // a fleet holds it alone; other scenarios share it
  ClientCosts costs;          // what each client's processes cost, for the fleets after them
  RunOptions measured = options;
  measured.costs = &costs;
  {
    std::vector<std::jthread> workers;
    for (int i = 0; i < std::max(1, jobs); ++i) {
      workers.emplace_back([&] {
        for (std::size_t at = next++; at < scenarios.size(); at = next++) {
          try {
            const bool fleet = scenarios[at].fleet.is_fleet() || scenarios[at].traffic;
            std::unique_lock<std::shared_mutex> alone(machine, std::defer_lock);
            std::shared_lock<std::shared_mutex> shared(machine, std::defer_lock);
            fleet ? alone.lock() : shared.lock();
            results[at] = run_scenario(scenarios[at], measured);
            costs.add(results[at]);
            progress.finished(reports::scenario_mark(results[at]),
                              reports::terminal_text(results[at].name));
          } catch (const std::exception& error) {
            std::lock_guard lock(failure_mutex);
            if (!failure) {
              // A bug of ours stays one: the program's exit status says so (exit_status.hpp).
              failure =
                  dynamic_cast<const InternalError*>(&error) != nullptr
                      ? std::current_exception()
                      : std::make_exception_ptr(std::runtime_error(
                            "scenario " + scenarios[at].name + " could not run: " + error.what()));
            }
            next = scenarios.size();  // start nothing more
          }
        }
      });
    }
  }
  if (failure) std::rethrow_exception(failure);
  return results;
}

// Why the matrix runs fewer scenarios than `run` does.
std::string pinned_note(const std::vector<std::string>& pinned, std::size_t catalog_size) {
  if (pinned.empty()) return "";
  return " (" + std::to_string(catalog_size - pinned.size()) + " of " +
         std::to_string(catalog_size) + ": " + reports::join(pinned, ", ") +
         (pinned.size() == 1 ? " is" : " are") + " pinned to " +
         (pinned.size() == 1 ? "its" : "their") + " own client)";
}

// The reference client and every mutant over the catalog: the reference must meet every
// expectation, and each mutant must miss at least one.
int run_mutant_matrix(const std::vector<Scenario>& catalog, RunOptions options, int jobs,
                      MatrixReport matrix, ReportFiles& reports) {
  std::vector<Scenario> scenarios;
  std::vector<std::string> pinned;
  for (const auto& scenario : catalog) {
    if (scenario.pinned_client) {
      pinned.push_back(scenario.name);  // it judges its own client, whichever the row's
    } else {
      scenarios.push_back(scenario);
    }
  }
  // A mutant only traffic can show (a retry budget lives in a long-lived instance) joins a
  // matrix whose scenarios have traffic; elsewhere it could not be caught, and is left out.
  const bool has_traffic = std::any_of(scenarios.begin(), scenarios.end(),
                                       [](const Scenario& scenario) { return scenario.traffic; });
  std::vector<ClientChoice> clients = {ClientChoice{}};
  for (const client::Mutant mutant : client::all_mutants()) {
    if (!has_traffic && client::row_of(mutant).shown_by == client::ShownBy::traffic) {
      std::cerr << "left out: mutant:" << client::to_string(mutant)
                << ", which only traffic shows (run --simulate --mutants scenarios/traffic)\n";
      continue;
    }
    clients.push_back({ClientChoice::Kind::mutant, mutant, {}});
  }
  for (const auto& choice : clients) {
    options.client = choice;
    std::cerr << "running " << reports::count_of(scenarios.size(), "scenario") << " against "
              << choice.describe() << pinned_note(pinned, catalog.size()) << "\n";
    matrix.rows.push_back(
        matrix_row(choice.describe(), run_all(scenarios, options, jobs), options.time_scale));
  }
  write_mutant_matrix(std::cout, matrix, terminal_colour());
  reports.write(matrix);
  return matrix_exit_status(matrix.rows);
}

// The command that runs the same matrix again.
std::string mutant_replay(const RunCommandOptions& command) {
  std::string replay = "retryproof run";
  for (const auto& path : command.paths)
    replay += " " + reports::shell_quote(path);
  replay += " --mutants --seed " + std::to_string(command.seed);
  if (!command.filter.empty()) replay += " --filter " + reports::shell_quote(command.filter);
  if (command.simulate) replay += " --simulate";
  if (command.sessions) replay += " --sessions";
  if (command.time_scale > 1) replay += " --time-scale " + std::to_string(command.time_scale);
  if (command.tls) replay += " --tls";
  return replay;
}

// --api: every scenario on that API's wire, but those that cannot mean the same there,
// which are left out and returned as "NAME on the API NAME: why".
std::vector<std::string> put_all_on_shape(std::vector<Scenario>& scenarios,
                                          const provider::ApiShape& shape) {
  std::vector<std::string> skipped;
  std::erase_if(scenarios, [&](Scenario& scenario) {
    const std::string why_not = put_on_shape(scenario, shape);
    if (!why_not.empty())
      skipped.push_back(scenario.name + " on the " + shape.name + " API: " + why_not);
    return !why_not.empty();
  });
  if (scenarios.empty()) {
    throw std::invalid_argument("no scenario can run on the " + shape.name +
                                " API: " + reports::join(skipped, "; "));
  }
  return skipped;
}

// The paths given, or else the catalog this program finds (installed beside it, or the
// source tree's for a program in its build tree), and the storm set beside it: fleets
// through outages, run by default with the catalog.
std::vector<std::filesystem::path> scenario_paths(const std::vector<std::string>& given) {
  if (!given.empty()) return {given.begin(), given.end()};
  const CatalogSearch search = find_catalog(this_executable(), built_in_catalog_places());
  if (!search.found) throw std::runtime_error(search.not_found_message());
  const std::filesystem::path storm = search.found->parent_path() / "storm";
  std::error_code ignored;
  if (std::filesystem::is_directory(storm, ignored)) return {*search.found, storm};
  return {*search.found};
}

// A format without a matrix writer would leave its file empty: say so before the run.
void refuse_page_reports_for_the_matrix(const RunCommandOptions& command) {
  for (const auto& [option, path] : command.reports) {
    const bool writes_matrix =
        std::any_of(matrix_formats().begin(), matrix_formats().end(),
                    [&](const MatrixFormat& format) { return format.option == option; });
    if (!path.empty() && !writes_matrix) {
      throw std::invalid_argument("--" + option +
                                  " writes one run's page, not the mutant matrix: drop it "
                                  "with --mutants, or run the client alone to write it");
    }
  }
}

// Everything a run settles before its first scenario.
struct PreparedRun {
  std::vector<Scenario> scenarios;
  std::vector<std::string> skipped;  // by --api
  RunOptions options;
  std::optional<ReportFiles> reports;
  Severity threshold = Severity::policy;
  InconclusiveAs inconclusive_as = InconclusiveAs::not_met;
  RunTimeScale time_scale;
};

// Loads and checks everything a run needs, so that a usage error is one line before the
// first scenario, never a failure per scenario. Throws it, naming what to fix.
void prepare(const RunCommandOptions& command, PreparedRun& run) {
  run.scenarios = load_catalog(scenario_paths(command.paths));
  if (!command.api.empty())
    run.skipped = put_all_on_shape(run.scenarios, provider::load_api_shape(command.api));
  run.options.client = parse_client_choice(command.client);
  require_client_program(run.options.client);
  run.options.declared = parse_client_policy(command.client_policy);
  run.threshold = parse_severity(command.fail_on);
  run.inconclusive_as = parse_inconclusive_as(command.inconclusive);
  if (command.mutants) refuse_page_reports_for_the_matrix(command);
  run.reports.emplace(command.reports);
  for (const auto& scenario : run.scenarios) {
    const std::string problem =
        cannot_speak(scenario, command.mutants ? ClientChoice{} : run.options.client);
    if (!problem.empty()) throw std::invalid_argument(problem);
  }
  if (command.simulate && run.options.client.kind == ClientChoice::Kind::command) {
    throw std::invalid_argument(
        "--simulate runs the reference client or a mutant in virtual time; a program (" +
        run.options.client.describe() + ") runs without it");
  }
  run.options.simulate = command.simulate;
  run.options.sessions = command.sessions;
  if (!command.filter.empty()) {
    std::erase_if(run.scenarios, [&](const Scenario& scenario) {
      return scenario.name.find(command.filter) == std::string::npos;
    });
    if (run.scenarios.empty())
      throw std::invalid_argument("no scenario name contains \"" + command.filter + "\"");
  }
  run.options.seed = command.seed;
  run.options.executable = this_executable();
  run.options.tls = command.tls;
  run.options.time_scale = TimeScale(command.time_scale);
  Millis tightest = client::kDefaultSettings.timeout;
  for (const auto& scenario : run.scenarios)
    tightest = std::min(tightest, scenario.settings.timeout);
  run.time_scale = settle_for_run(run.options, tightest);
}

int run(const RunCommandOptions& command) {
  PreparedRun prepared;
  try {
    prepare(command, prepared);
  } catch (const std::exception& error) {
    std::cerr << "retryproof run: " << error.what()
              << (std::string(error.what()).ends_with("\n") ? "" : "\n");
    return 2;
  }
  try {
    if (command.mutants) {
      const MatrixReport matrix{.seed = command.seed,
                                .time_scale = prepared.time_scale,
                                .replay = mutant_replay(command)};
      return run_mutant_matrix(prepared.scenarios, prepared.options, command.jobs, matrix,
                               *prepared.reports);
    }
    const RunSummary summary{.seed = command.seed,
                             .client = prepared.options.client.describe(),
                             .results = run_all(prepared.scenarios, prepared.options, command.jobs),
                             .paths = command.paths,
                             .time_scale = prepared.time_scale,
                             .api = command.api,
                             .client_policy = command.client_policy,
                             .skipped = prepared.skipped,
                             .tls = command.tls,
                             .simulate = command.simulate,
                             .sessions = command.sessions,
                             .inconclusive_as = prepared.inconclusive_as};
    // The clock probe's finding and the scenarios that ran at a lower scale are in the report.
    write_terminal_report(std::cout, summary, terminal_colour());
    prepared.reports->write(summary);
    const int status = exit_status(summary.results, prepared.threshold, summary.inconclusive_as);
    explain_exit_status(std::cout, summary.results, prepared.threshold, summary.inconclusive_as,
                        status);
    return status;
  } catch (const InternalError&) {
    throw;  // main says it, with its own exit status
  } catch (const std::exception& error) {
    std::cerr << "retryproof run: " << error.what() << '\n';
    return 2;
  }
}

// How the client is judged: what it promises, which failures fail the run, and what an
// inconclusive scenario counts as.
void add_judgement_options(CLI::App& command, RunCommandOptions& options) {
  command.add_option("--client-policy", options.client_policy,
                     "What the client under test promises, judged instead of the scenario's "
                     "settings: attempts=N (creates per run, counting the first), "
                     "min-backoff=DURATION, max-backoff=DURATION, timeout=DURATION, "
                     "on-ambiguous=lookup-first|same-key-retry, follows-settings (it honours "
                     "RETRYPROOF_CLIENT), payload=verbatim|mapped (it sends the payload as its "
                     "body, or maps it to its SDK's wire: the default), retry-budget=P% or "
                     "P%/N (its instance's retries at most P% of its requests, N to start "
                     "with), breaker=F/T (its instance's circuit opens after F failures in a "
                     "row and probes every T), jitter-after-retry-after. Example: "
                     "attempts=4,min-backoff=0ms (docs/scenarios.md, Declaring the client's "
                     "policy)");
  command
      .add_option("--fail-on", options.fail_on,
                  "Which failures make the run fail: policy (any, the default) or harm "
                  "(duplicate effects, untruthful or missing outcomes only)")
      ->capture_default_str()
      ->check(CLI::IsMember({"harm", "policy"}));
  command.add_option("--inconclusive", options.inconclusive, inconclusive_option_help())
      ->capture_default_str()
      ->check(CLI::IsMember({"not-met", "pass", "fail"}));
}

}  // namespace

void add_run_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<RunCommandOptions>();
  CLI::App* command = app.add_subcommand(
      "run",
      "Run scenarios (default: the whole catalog) against a client and judge it: one "
      "idempotency key per operation, no duplicate effect, lookups after unseen outcomes, "
      "bounded retries with backoff, truthful outcomes. Exit 0 when every scenario meets its "
      "expectations, 1 when one does not, 3 when none failed but one could not be judged "
      "(inconclusive), 2 for a usage or catalog error, 70 for an internal error.");
  command->add_option("paths", options->paths,
                      "Scenario files or directories (default: the catalog installed with the "
                      "program, PREFIX/share/retryproof/catalog; in a build tree, the source "
                      "tree's scenarios/catalog)");
  command
      ->add_option("--client", options->client,
                   "reference, mutant:NAME, or cmd:COMMAND (any program honouring the "
                   "external-client contract, run with /bin/sh -c)")
      ->capture_default_str();
  command
      ->add_option("--seed", options->seed,
                   "Seed for job ids and the clients' jitter; replays a run")
      ->capture_default_str();
  command
      ->add_option("--jobs", options->jobs,
                   "Scenarios run at once, each with its own provider (a fleet runs alone)")
      ->capture_default_str()
      ->check(CLI::Range(1, 64));
  command->add_option("--filter", options->filter, "Only scenarios whose name contains this text");
  command->add_option("--api", options->api,
                      "Run every scenario on this API's wire: a built-in shape (" +
                          provider::api_shape_names() +
                          ") or a shape file (docs/sdks.md). The client maps each operation's "
                          "payload to its SDK's call; a scenario that cannot mean the same on "
                          "that API is skipped, and the reason printed");
  add_judgement_options(*command, *options);
  for (const ReportFormat& format : report_formats()) {
    command->add_option("--" + std::string(format.option),
                        options->reports[std::string(format.option)], std::string(format.help));
  }
  add_time_scale_option(*command, options->time_scale);
  command->add_flag("--sessions", options->sessions,
                    "The client speaks the session contract (docs/sessions.md): a fleet's "
                    "operations are served by ten long-lived sessions, as a service would serve "
                    "them, instead of a process each (traffic always runs as sessions)");
  command->add_flag("--simulate", options->simulate,
                    "Run every scenario in the simulation, in virtual time, from the seed: the "
                    "reference client or a mutant, exactly and fast. The traffic set "
                    "(scenarios/traffic) runs only so");
  command->add_flag(
      "--tls", options->tls,
      "Every scenario's provider serves HTTPS with a certificate made for the run; clients get "
      "an https:// RETRYPROOF_BASE_URL and its CA through SSL_CERT_FILE, NODE_EXTRA_CA_CERTS, "
      "REQUESTS_CA_BUNDLE, CURL_CA_BUNDLE and RETRYPROOF_CA_FILE");
  command->add_flag(
      "--mutants", options->mutants,
      "Run the reference client and every mutant, and print the matrix of what "
      "caught each mutant (exit 0 when the reference is clean and every mutant caught); "
      "--json, --junit and --markdown then write the matrix");
  command->callback([options, &exit_code] { exit_code = run(*options); });
}

}  // namespace retryproof::scenarios
