#include "scenarios/runner.hpp"

#include <signal.h>
#include <stdlib.h>

#include <algorithm>
#include <sstream>

#include "common/duration.hpp"
#include "common/fingerprint.hpp"
#include "common/temp_dir.hpp"
#include "provider/provider_server.hpp"
#include "scenarios/child_process.hpp"

namespace retryproof::scenarios {
namespace {

using nlohmann::json;

std::vector<std::string> client_argv(const ClientChoice& choice, const Scenario& scenario,
                                     const RunOptions& options, std::uint64_t seed) {
  if (choice.kind == ClientChoice::Kind::command) return {"/bin/sh", "-c", choice.command};
  const auto& settings = scenario.settings;
  std::vector<std::string> argv = {options.executable.string(),
                                   "client",
                                   "--attempts",
                                   std::to_string(settings.attempts),
                                   "--base-delay",
                                   format_duration(settings.base_delay),
                                   "--max-delay",
                                   format_duration(settings.max_delay),
                                   "--timeout",
                                   format_duration(settings.timeout),
                                   "--seed",
                                   std::to_string(seed)};
  if (choice.kind == ClientChoice::Kind::mutant) {
    argv.insert(argv.end(), {"--mutant", client::to_string(choice.mutant)});
  }
  return argv;
}

// The contract's outcome line, or why the output is not one.
std::string read_outcome(const std::string& standard_output, json& outcome) {
  std::istringstream lines(standard_output);
  std::string line;
  while (std::getline(lines, line) && line.find_first_not_of(" \t\r") == std::string::npos) {
  }
  if (line.find_first_not_of(" \t\r") == std::string::npos) return "printed no outcome line";
  const json parsed = json::parse(line, nullptr, false);
  const std::string quoted = "\"" + line.substr(0, 200) + "\"";
  if (!parsed.is_object()) return "printed " + quoted + ", which is not a JSON object";
  const std::string kind = parsed.value("outcome", "");
  if (kind != "succeeded" && kind != "failed" && kind != "unknown") {
    return "printed " + quoted + ": \"outcome\" must be succeeded, failed or unknown";
  }
  if (kind == "succeeded" && !(parsed.contains("jobId") && parsed["jobId"].is_string())) {
    return "printed " + quoted + ": a succeeded outcome names its \"jobId\"";
  }
  outcome = parsed;
  return {};
}

std::string last_lines(const std::string& text, std::size_t count) {
  std::size_t start = text.size();
  for (std::size_t found = 0; start > 0 && found <= count;) {
    if (text[--start] == '\n' && start + 1 < text.size()) ++found;
  }
  return start == 0 ? text : text.substr(start + 1);
}

InvocationResult invoke(const Scenario& scenario, const Invocation& invocation, int index,
                        const ClientChoice& choice, const RunOptions& options,
                        provider::ProviderServer& server, const TempDir& state) {
  InvocationResult result;
  result.index = index;
  result.operation = invocation.operation;
  result.payload = invocation.payload.value_or(scenario.operation(invocation.operation).payload);
  result.first_seq = server.core().journal_size() + 1;
  result.started_at = server.now();
  const std::size_t jobs_before = server.core().job_count();

  const std::uint64_t seed = options.seed + static_cast<std::uint64_t>(index);
  ChildProcess child(
      client_argv(choice, scenario, options, seed),
      {{"RETRYPROOF_BASE_URL", server.base_url()},
       {"RETRYPROOF_OPERATION",
        json{{"operationId", invocation.operation}, {"payload", result.payload}}.dump()},
       {"RETRYPROOF_STATE_DIR", state.path().string()},
       {"RETRYPROOF_SEED", std::to_string(seed)}});
  const auto deadline = std::chrono::steady_clock::now() + scenario.time_limit;

  std::optional<ExitStatus> status;
  if (invocation.kill == KillPoint::after_commit) {
    // Until the provider commits, or the client ends first (then there is nothing to kill).
    while (!status && std::chrono::steady_clock::now() < deadline) {
      const auto slice =
          std::min(deadline, std::chrono::steady_clock::now() + std::chrono::milliseconds(20));
      if (server.core().wait_for_jobs(jobs_before + 1, slice)) {
        child.send_signal(SIGKILL);
        result.killed = true;
        break;
      }
      status = child.wait(std::chrono::milliseconds(0));
    }
  }
  if (!status) {
    status = child.wait(std::chrono::duration_cast<std::chrono::milliseconds>(std::max(
        deadline - std::chrono::steady_clock::now(), std::chrono::steady_clock::duration(0))));
  }
  if (!status) {
    child.send_signal(SIGKILL);
    status = child.wait(std::chrono::seconds(10));
    result.client_error =
        "no outcome within the time limit of " + format_duration(scenario.time_limit) + "; killed";
  }
  result.exit = status ? status->describe() : "still running";
  result.standard_error = last_lines(child.standard_error(), 40);
  result.ended_at = server.now();
  result.last_seq = server.core().journal_size();

  if (result.killed || !result.client_error.empty()) return result;
  if (invocation.kill == KillPoint::after_commit) {
    result.client_error = "ended before the provider committed, so it could not be killed there";
  }
  const std::string problem = read_outcome(child.standard_output(), result.outcome);
  if (!problem.empty()) {
    result.client_error = problem + " (" + result.exit + ")";
  } else if (!status->exited() || status->code != 0) {
    result.client_error = "ended with " + result.exit + " after printing its outcome";
  }
  return result;
}

}  // namespace

int ScenarioResult::posts() const {
  return static_cast<int>(std::count_if(journal.begin(), journal.end(), [](const json& entry) {
    return entry["method"] == "POST" && entry["path"] == "/jobs";
  }));
}

ScenarioResult run_scenario(const Scenario& scenario, const RunOptions& options) {
  const ClientChoice choice = scenario.pinned_client.value_or(options.client);
  ScenarioResult result{.name = scenario.name,
                        .description = scenario.description,
                        .file = scenario.file.string(),
                        .client = choice.describe(),
                        .seed = options.seed,
                        .expected_violations = scenario.expect.violations};

  provider::ProviderServer server({.seed = options.seed,
                                   .profile = scenario.profile,
                                   .initial_plan = provider::FaultPlan::from_json(scenario.plan)},
                                  {.host = "127.0.0.1", .port = 0, .workers = 16});
  const TempDir state("retryproof-run");
  for (std::size_t i = 0; i < scenario.invocations.size(); ++i) {
    result.invocations.push_back(invoke(scenario, scenario.invocations[i], static_cast<int>(i),
                                        choice, options, server, state));
  }
  // Requests still held end their waits, and commit, before the provider is judged.
  server.stop();
  result.journal = server.core().journal_json()["entries"];
  result.jobs = server.core().jobs_json()["jobs"];

  const RunRecord record{scenario, result.invocations, result.journal, result.jobs};
  result.verdicts = judge(record);
  result.unmet = unmet_expectations(scenario, result);
  return result;
}

std::vector<std::string> unmet_expectations(const Scenario& scenario,
                                            const ScenarioResult& result) {
  std::vector<std::string> unmet;
  const auto& expected = scenario.expect.violations;
  for (const Verdict& verdict : result.verdicts) {
    const bool expected_to_fail =
        std::find(expected.begin(), expected.end(), verdict.id) != expected.end();
    if (expected_to_fail && verdict.status != VerdictStatus::fail) {
      unmet.push_back(verdict.id + " was expected to flag this client, but it " +
                      (verdict.status == VerdictStatus::pass ? "passed" : "did not apply"));
    } else if (!expected_to_fail && verdict.status == VerdictStatus::fail) {
      unmet.push_back(verdict.id + ": " + verdict.explanation);
    }
  }
  if (scenario.expect.jobs && static_cast<int>(result.jobs.size()) != *scenario.expect.jobs) {
    unmet.push_back("the provider holds " + std::to_string(result.jobs.size()) +
                    " jobs; expected " + std::to_string(*scenario.expect.jobs));
  }
  if (!scenario.expect.outcomes.empty()) {
    // The last outcome reported for each operation is its final word.
    std::map<std::string, std::string> final_outcome;
    for (const auto& invocation : result.invocations) {
      if (invocation.outcome.is_object())
        final_outcome[invocation.operation] = invocation.outcome["outcome"];
    }
    const auto& allowed = scenario.expect.outcomes;
    for (const auto& [operation, outcome] : final_outcome) {
      if (std::find(allowed.begin(), allowed.end(), outcome) == allowed.end()) {
        std::string list;
        for (const auto& name : allowed)
          list += (list.empty() ? "" : " or ") + name;
        unmet.push_back(operation + " ended " + outcome + "; expected " + list);
      }
    }
  }
  return unmet;
}

}  // namespace retryproof::scenarios
