#include "scenarios/run_command.hpp"

#include <unistd.h>

#include <atomic>
#include <fstream>
#include <iostream>
#include <memory>
#include <thread>

#include "scenarios/child_process.hpp"
#include "scenarios/mutant_matrix.hpp"
#include "scenarios/reports.hpp"
#include "scenarios/runner.hpp"

namespace retryproof::scenarios {
namespace {

struct RunCommandOptions {
  std::vector<std::string> paths;
  std::string client = "reference";
  std::uint64_t seed = 0;
  int jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::string filter;
  std::string junit;
  std::string json;
  std::string markdown;
  bool mutants = false;
};

// Runs every scenario on `jobs` threads; results keep the catalog's order.
std::vector<ScenarioResult> run_all(const std::vector<Scenario>& scenarios,
                                    const RunOptions& options, int jobs) {
  std::vector<ScenarioResult> results(scenarios.size());
  std::atomic<std::size_t> next{0};
  {
    std::vector<std::jthread> workers;
    for (int i = 0; i < std::max(1, jobs); ++i) {
      workers.emplace_back([&] {
        for (std::size_t at = next++; at < scenarios.size(); at = next++) {
          results[at] = run_scenario(scenarios[at], options);
        }
      });
    }
  }
  return results;
}

void write_file(const std::string& path, const std::function<void(std::ostream&)>& write) {
  if (path.empty()) return;
  std::ofstream file(path);
  if (!file) throw std::runtime_error("cannot write " + path);
  write(file);
}

// The reference client and every mutant over the catalog: the reference must meet every
// expectation, and each mutant must miss at least one.
int run_mutant_matrix(const std::vector<Scenario>& catalog, RunOptions options, int jobs,
                      const RunCommandOptions& command) {
  std::vector<Scenario> scenarios;
  for (const auto& scenario : catalog) {
    if (!scenario.pinned_client) scenarios.push_back(scenario);  // those judge their own client
  }
  std::vector<ClientChoice> clients = {ClientChoice{}};
  for (const client::Mutant mutant : client::all_mutants()) {
    clients.push_back({ClientChoice::Kind::mutant, mutant, {}});
  }
  std::vector<MatrixRow> rows;
  for (const auto& choice : clients) {
    options.client = choice;
    std::cerr << "running " << scenarios.size() << " scenarios against " << choice.describe()
              << "\n";
    rows.push_back(matrix_row(choice.describe(), run_all(scenarios, options, jobs)));
  }
  write_mutant_matrix(std::cout, options.seed, rows, isatty(STDOUT_FILENO) != 0);
  write_file(command.markdown,
             [&](std::ostream& out) { write_mutant_matrix_markdown(out, options.seed, rows); });
  return matrix_holds(rows) ? 0 : 1;
}

int run(const RunCommandOptions& command) {
  std::vector<std::filesystem::path> paths(command.paths.begin(), command.paths.end());
  if (paths.empty()) paths.emplace_back(RETRYPROOF_CATALOG_DIR);
  std::vector<Scenario> scenarios;
  RunOptions options;
  try {
    scenarios = load_catalog(paths);
    options.client = parse_client_choice(command.client);
  } catch (const std::exception& error) {
    std::cerr << "retryproof run: " << error.what()
              << (std::string(error.what()).ends_with("\n") ? "" : "\n");
    return 2;
  }
  if (!command.filter.empty()) {
    std::erase_if(scenarios, [&](const Scenario& scenario) {
      return scenario.name.find(command.filter) == std::string::npos;
    });
    if (scenarios.empty()) {
      std::cerr << "retryproof run: no scenario name contains \"" << command.filter << "\"\n";
      return 2;
    }
  }
  options.seed = command.seed;
  options.executable = this_executable();

  try {
    if (command.mutants) return run_mutant_matrix(scenarios, options, command.jobs, command);
    const RunSummary summary{command.seed, options.client.describe(),
                             run_all(scenarios, options, command.jobs)};
    write_terminal_report(std::cout, summary, isatty(STDOUT_FILENO) != 0);
    write_file(command.json, [&](std::ostream& out) { out << to_json(summary).dump(2) << '\n'; });
    write_file(command.junit, [&](std::ostream& out) { write_junit(out, summary); });
    write_file(command.markdown, [&](std::ostream& out) { write_markdown(out, summary); });
    const bool all_met = std::all_of(summary.results.begin(), summary.results.end(),
                                     [](const ScenarioResult& result) { return result.met(); });
    return all_met ? 0 : 1;
  } catch (const std::exception& error) {
    std::cerr << "retryproof run: " << error.what() << '\n';
    return 2;
  }
}

}  // namespace

void add_run_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<RunCommandOptions>();
  CLI::App* command = app.add_subcommand(
      "run",
      "Run scenarios (default: the whole catalog) against a client and judge it: one "
      "idempotency key per operation, no duplicate effect, lookups after unseen outcomes, "
      "bounded retries with backoff, truthful outcomes. Exit 0 when every scenario meets its "
      "expectations, 1 when one does not, 2 for a usage or catalog error.");
  command->add_option("paths", options->paths,
                      "Scenario files or directories (default: " RETRYPROOF_CATALOG_DIR ")");
  command
      ->add_option("--client", options->client,
                   "reference, mutant:NAME, or cmd:COMMAND (any program honouring the "
                   "external-client contract, run with /bin/sh -c)")
      ->capture_default_str();
  command
      ->add_option("--seed", options->seed,
                   "Seed for job ids and the clients' jitter; replays a run")
      ->capture_default_str();
  command->add_option("--jobs", options->jobs, "Scenarios run at once, each with its own provider")
      ->capture_default_str()
      ->check(CLI::Range(1, 64));
  command->add_option("--filter", options->filter, "Only scenarios whose name contains this text");
  command->add_option("--junit", options->junit, "Also write a JUnit XML report to this file");
  command->add_option("--json", options->json, "Also write the whole result as JSON to this file");
  command->add_option(
      "--markdown", options->markdown,
      "Also write a Markdown report (with sequence diagrams of failures) to this file");
  command->add_flag(
      "--mutants", options->mutants,
      "Run the reference client and every mutant, and print the matrix of what "
      "caught each mutant (exit 0 when the reference is clean and every mutant caught)");
  command->callback([options, &exit_code] { exit_code = run(*options); });
}

}  // namespace retryproof::scenarios
