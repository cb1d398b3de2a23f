#include "scenarios/commands/explore_command.hpp"

#include <unistd.h>

#include <fstream>
#include <iostream>
#include <memory>

#include "common/duration.hpp"
#include "scenarios/commands/client_command_check.hpp"
#include "scenarios/commands/output_file.hpp"
#include "scenarios/commands/progress.hpp"
#include "scenarios/commands/time_scale_option.hpp"
#include "scenarios/model/schedule.hpp"
#include "scenarios/model/seed_space.hpp"
#include "scenarios/process/child_process.hpp"
#include "scenarios/process/clock_probe.hpp"
#include "scenarios/process/process_world.hpp"
#include "scenarios/reports/reports.hpp"
#include "scenarios/reports/text.hpp"

namespace retryproof::scenarios {
namespace {

using Clock = std::chrono::steady_clock;

struct ExploreOptions {
  std::string client = "reference";
  int runs = 50;
  std::uint64_t seed = 0;
  std::string time_limit = "10m";
  std::string save = "retryproof-counterexample.json";
  std::string client_policy;
  std::string fail_on = "policy";
  bool with_delays = false;
  std::string shard = "1/1";
  int time_scale = 1;
};

// "shrinking: 7 tried; smallest failing so far: 1 operation, 2 faults (size 5)"
std::string shrinking_status(std::size_t tried, const Schedule& best) {
  return "shrinking: " + std::to_string(tried) + " tried; smallest failing so far: " +
         reports::count_of(static_cast<std::size_t>(best.operations), "operation") + ", " +
         reports::count_of(best.faults.size(), "fault") + " (size " +
         std::to_string(complexity(best)) + ")";
}

// What explore settles before its first schedule, and how it runs one.
struct Exploration {
  ClientChoice client;
  Severity threshold = Severity::policy;
  Clock::time_point deadline;
  Shard shard;
  RunOptions run_options;
  bool follows = false;  // the client follows RETRYPROOF_CLIENT, so its settings are varied
  RunTimeScale time_scale;

  Settings settings() const { return follows ? Settings::varied : Settings::defaults; }

  // Runs `schedule` from `seed`: true when it fails at the threshold; its result is kept
  // in `keep` when one is given.
  bool violates(const Schedule& schedule, std::uint64_t seed, ScenarioResult* keep) {
    run_options.seed = seed;
    ScenarioResult result = run_scenario(to_scenario(schedule, "explored"), run_options);
    const bool failed = result.fails_at(threshold);
    if (keep) *keep = std::move(result);
    return failed;
  }

  void print_report(const ScenarioResult& result, std::uint64_t seed) const {
    write_terminal_report(std::cout,
                          RunSummary{.seed = seed,
                                     .client = client.describe(),
                                     .results = {result},
                                     .time_scale = time_scale},
                          isatty(STDOUT_FILENO) != 0 ? Colour::on : Colour::off);
  }
};

// Throws a usage error naming the option at fault.
Exploration settle(const ExploreOptions& options) {
  Exploration settled;
  settled.client = parse_client_choice(options.client);
  const ClientPolicy declared = parse_client_policy(options.client_policy);
  settled.threshold = parse_severity(options.fail_on);
  settled.deadline = Clock::now() + parse_duration(options.time_limit);
  require_client_program(settled.client);
  if (const auto problem = unwritable(options.save)) {
    throw std::runtime_error("--save " + options.save + ": " + *problem);
  }
  settled.shard = parse_shard(options.shard);
  settled.run_options = {.client = settled.client,
                         .executable = this_executable(),
                         .declared = declared,
                         .time_scale = TimeScale(options.time_scale)};
  // A client is judged only by settings it says it follows: the others get the defaults.
  settled.follows = declared.over(implicit_policy(settled.client)).follows_settings.value_or(false);
  // The counterexample's reports say how time ran; the probe's and the overhead's
  // sentences are printed here, before the first schedule.
  settled.time_scale = settle_for_run(settled.run_options, shortest_timeout(settled.settings()));
  for (const auto& sentence : {settled.time_scale.probe, settled.time_scale.overhead}) {
    if (!sentence.empty()) std::cout << sentence << '\n';
  }
  return settled;
}

// The flags a schedule depends on besides its seed, for the replay commands.
std::string replay_flags(const ExploreOptions& options, const Exploration& exploration) {
  return (options.client_policy.empty()
              ? ""
              : " --client-policy " + reports::shell_quote(options.client_policy)) +
         (exploration.run_options.time_scale.is_real_time()
              ? ""
              : " --time-scale " + std::to_string(exploration.run_options.time_scale.factor()));
}

// The first violation found: printed, shrunk to the smallest schedule that still fails,
// saved, and the commands that replay it printed. Exit 1.
int shrink_and_save(const ExploreOptions& options, Exploration& exploration,
                    ProgressPrinter& progress, const std::string& which, const Schedule& schedule,
                    std::uint64_t seed, const ScenarioResult& result) {
  std::cout << "\n"
            << which << " exposes a violation:\n"
            << to_scenario_json(schedule, "explored").dump(2) << "\n\n";
  exploration.print_report(result, seed);

  std::cout << "\nshrinking..." << std::endl;
  std::size_t tried = 0;
  progress.status(shrinking_status(tried, schedule));
  const Schedule smallest = shrink(
      schedule,
      [&](const Schedule& candidate) {
        const bool fails = exploration.violates(candidate, seed, nullptr);
        ++tried;
        if (fails) progress.status(shrinking_status(tried, candidate));
        return fails;
      },
      exploration.deadline);
  progress.clear();
  ScenarioResult smallest_result;
  exploration.violates(smallest, seed, &smallest_result);
  std::cout << "\nthe smallest schedule found that still fails:\n";
  exploration.print_report(smallest_result, seed);

  std::ofstream saved(options.save);
  saved << to_scenario_json(smallest, "explored-counterexample").dump(2) << '\n';
  if (!saved.flush()) {
    std::cerr << "retryproof explore: cannot write the counterexample to " << options.save
              << "; it is printed above\n";
    return 1;
  }
  const std::string client = reports::shell_quote(exploration.client.describe());
  const std::string same_flags = replay_flags(options, exploration);
  std::cout << "\nsaved to " << options.save << "; replay it with:\n  retryproof run "
            << reports::shell_quote(options.save) << " --client " << client << " --seed " << seed
            << same_flags
            << "\nor explore it again from its seed alone:\n  retryproof explore --client "
            << client << " --seed " << seed << " --runs 1"
            << (options.with_delays ? " --with-delays" : "") << same_flags << '\n';
  return 1;
}

int explore(const ExploreOptions& options) {
  Exploration exploration;
  try {
    exploration = settle(options);
  } catch (const std::exception& error) {
    std::cerr << "retryproof explore: " << error.what() << '\n';
    return 2;
  }
  const FaultMenu menu = options.with_delays ? FaultMenu::all : FaultMenu::instant;
  std::cout << "retryproof explore: client " << exploration.client.describe() << ", seed "
            << options.seed
            << (exploration.shard.count > 1 ? ", shard " + exploration.shard.describe() : "")
            << ", up to " << reports::count_of(static_cast<std::size_t>(options.runs), "schedule")
            << ", "
            << (exploration.follows
                    ? "varying the client's settings (it follows RETRYPROOF_CLIENT)"
                    : "with the default client settings (declare follows-settings to vary them)")
            << std::endl;
  // Progress on standard error: the schedules tried, then the smallest failing one so far.
  ProgressPrinter progress(std::cerr, ProgressPrinter::mode_for(STDERR_FILENO),
                           static_cast<std::size_t>(options.runs));
  for (int run = 0; run < options.runs; ++run) {
    if (Clock::now() >= exploration.deadline) {
      progress.clear();
      std::cout << "time limit reached after "
                << reports::count_of(static_cast<std::size_t>(run), "schedule")
                << ": no violation found\n";
      return 0;
    }
    // Everything about a schedule derives from its seed alone (seed_space.hpp).
    const std::uint64_t seed = exploration.shard.schedule_seed(options.seed, run);
    const Schedule schedule = schedule_of_seed(seed, menu, exploration.settings());
    const std::string which =
        "schedule " + std::to_string(run + 1) + " (seed " + std::to_string(seed) + ")";
    ScenarioResult result;
    if (!exploration.violates(schedule, seed, &result)) {
      progress.finished("no violation:", which);
      continue;
    }
    progress.finished("VIOLATION:", which);
    progress.clear();
    return shrink_and_save(options, exploration, progress, which, schedule, seed, result);
  }
  progress.clear();
  std::cout << reports::count_of(static_cast<std::size_t>(options.runs), "schedule")
            << ": no violation found\n";
  return 0;
}

}  // namespace

void add_explore_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<ExploreOptions>();
  CLI::App* command = app.add_subcommand(
      "explore",
      "Throw random fault schedules at a client over real HTTP. On the first violation, print "
      "it, shrink the schedule to the smallest that still fails, save it as a scenario file and "
      "print the command that replays it. Exit 0 when none is found, 1 when one is, 2 for a "
      "usage error.");
  command->add_option("--client", options->client, "reference, mutant:NAME or cmd:COMMAND")
      ->capture_default_str();
  command->add_option("--runs", options->runs, "Schedules to try")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000000));
  command
      ->add_option("--seed", options->seed,
                   "Seed of the schedules; the same seed tries the same ones")
      ->capture_default_str();
  command
      ->add_option("--time-limit", options->time_limit,
                   "Stop exploring (and shrinking) after this long")
      ->capture_default_str();
  command->add_option("--save", options->save, "Where to write the smallest failing schedule")
      ->capture_default_str();
  command->add_option("--client-policy", options->client_policy,
                      "What the client under test promises (as for run); explore varies the "
                      "client's settings only when it declares follows-settings");
  command
      ->add_option("--fail-on", options->fail_on,
                   "Which failures count as a violation: policy (any, the default) or harm")
      ->capture_default_str()
      ->check(CLI::IsMember({"harm", "policy"}));
  command
      ->add_option("--shard", options->shard,
                   "K/N: try only shard K of N of the seed's schedules (the K-th, (K+N)-th, ...), "
                   "so that N jobs of a CI matrix with the same --seed and --runs explore "
                   "disjoint schedules which together are those of one explore of N times the "
                   "runs. Each schedule's seed alone replays it")
      ->capture_default_str();
  add_time_scale_option(*command, options->time_scale);
  command->add_flag("--with-delays", options->with_delays,
                    "Also draw delayed responses and held requests (slower; their outcome over "
                    "real HTTP depends on timing)");
  command->callback([options, &exit_code] { exit_code = explore(*options); });
}

}  // namespace retryproof::scenarios
