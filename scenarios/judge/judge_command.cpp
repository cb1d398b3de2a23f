#include "scenarios/judge/judge_command.hpp"

#include <unistd.h>

#include <iostream>
#include <memory>
#include <optional>

#include "common/json_file.hpp"
#include "scenarios/judge/merge_journals.hpp"
#include "scenarios/judge/traffic.hpp"
#include "scenarios/reports/report_files.hpp"
#include "scenarios/reports/text.hpp"

namespace retryproof::scenarios {
namespace {

struct JudgeOptions {
  std::vector<std::string> journals;  // one per service instance, judged as one fleet
  std::string operation_field;
  std::string client_policy;
  std::string api;  // the shape the journal's provider spoke, when not jobs
  std::string fail_on = "policy";
  std::string inconclusive = "not-met";
  std::map<std::string, std::string> reports;  // format option -> file
};

// A file saved from a control plane that refused to answer (curl -o without the token, or a
// proxy's 502) holds an error body, not a journal: judging it as an empty journal would be
// a clean verdict on nothing. Its own words say what to fix.
void refuse_error_body(const std::string& path, const nlohmann::json& document) {
  if (!document.is_object() || document.contains("entries") || !document.contains("error")) return;
  const nlohmann::json& error = document["error"];
  // The baseline and problem+json forms say {"error": code, "detail"}; Stripe's nests them.
  const nlohmann::json& fields = error.is_object() ? error : document;
  const std::string code =
      error.is_string() ? error.get<std::string>() : fields.value("code", std::string("error"));
  const std::string detail = fields.value("detail", fields.value("message", std::string()));
  throw std::invalid_argument(
      path + ": not a journal but the control plane's refusal (" + code +
      (detail.empty() ? "" : ": " + detail) +
      "); the traffic is unknown, not clean: fetch GET /_test/journal again" +
      (code == "unauthorized" ? " with Authorization: Bearer <control token>" : ""));
}

SourcedJournal read_journal(const std::string& path) {
  const nlohmann::json document = read_json_file(path);
  refuse_error_body(path, document);
  try {
    provider::JournalDocument read = provider::journal_document_from_json(document);
    return {path, std::move(read.entries), std::move(read.missing),
            std::move(read.operation_field)};
  } catch (const std::invalid_argument& error) {
    throw std::invalid_argument(path + ": " + error.what() +
                                " (a journal is what GET /_test/journal returns: {\"count\", "
                                "\"entries\"})");
  }
}

std::string replay_of(const JudgeOptions& options) {
  std::string command = "retryproof judge";
  for (const std::string& journal : options.journals)
    command += " " + reports::shell_quote(journal);
  if (!options.operation_field.empty())
    command += " --operation-field " + reports::shell_quote(options.operation_field);
  if (!options.client_policy.empty())
    command += " --client-policy " + reports::shell_quote(options.client_policy);
  if (!options.api.empty()) command += " --api " + reports::shell_quote(options.api);
  return command;
}

// The field the journals' operations were recorded by: --operation-field, which must be what
// a journal that says its field says (a saved journal is refused as the live endpoint
// refuses), or else what they say. Empty when neither says.
std::string operation_field_of(const std::vector<SourcedJournal>& journals,
                               const std::string& given) {
  std::string field = given;
  for (const SourcedJournal& journal : journals) {
    if (!journal.operation_field) continue;
    const std::string& recorded = *journal.operation_field;
    if (!given.empty() && given != recorded) {
      throw std::invalid_argument(
          "--operation-field " + given + ": " + journal.file + " records its operations by " +
          recorded + " (its server ran with --operation-field " + recorded +
          "); judge with --operation-field " + recorded + ", or without it");
    }
    if (!field.empty() && field != recorded) {
      throw std::invalid_argument(journal.file + " records its operations by " + recorded +
                                  ", another journal by " + field +
                                  ": one fleet's journals are judged by one field");
    }
    field = recorded;
  }
  return field;
}

int judge(const JudgeOptions& options) {
  std::optional<ReportFiles> reports;
  RunSummary summary{.seed = 0,
                     .client = "traffic",
                     .inconclusive_as = parse_inconclusive_as(options.inconclusive)};
  std::string field;  // what the operations are grouped by
  try {
    reports.emplace(options.reports);
    std::vector<SourcedJournal> journals;
    for (const std::string& file : options.journals)
      journals.push_back(read_journal(file));
    field = operation_field_of(journals, options.operation_field);
    const TrafficOptions traffic{
        .operation_field = field,
        .require_operations = !options.operation_field.empty(),
        .declared = parse_client_policy(options.client_policy),
        .api = options.api.empty() ? provider::jobs_shape() : provider::load_api_shape(options.api),
        .file = reports::join(options.journals, ", ")};
    summary.results.push_back(judge_journals(journals, traffic));
  } catch (const std::exception& error) {
    std::cerr << "retryproof judge: " << error.what() << '\n';
    return 2;
  }
  summary.subject = "judge: traffic in " + reports::join(options.journals, ", ") +
                    (options.journals.size() > 1 ? " as one fleet" : "") +
                    (field.empty() ? "" : ", operations by " + field);
  summary.replay = replay_of(options);
  write_terminal_report(std::cout, summary, isatty(STDOUT_FILENO) != 0 ? Colour::on : Colour::off);
  try {
    reports->write(summary);
  } catch (const std::exception& error) {
    std::cerr << "retryproof judge: " << error.what() << '\n';
    return 2;
  }
  const Severity threshold = parse_severity(options.fail_on);
  const int status = exit_status(summary.results, threshold, summary.inconclusive_as);
  explain_exit_status(std::cout, summary.results, threshold, summary.inconclusive_as, status);
  return status;
}

}  // namespace

void add_judge_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<JudgeOptions>();
  CLI::App* command = app.add_subcommand(
      "judge",
      "Judge a service by its traffic alone: read a journal (what GET /_test/journal returns), "
      "group its requests into operations by a business field of their payloads, and run every "
      "verdict that needs no outcome line (duplicates, key and payload stability, lookup-first, "
      "budget, backoff, Retry-After, no retry of a definitive failure). Exit 0 when none fails, "
      "1 when one does, 3 when none fails but the journal could not show enough to judge "
      "(entries missing, dropped or lost; an empty journal), 2 for bad input.");
  command
      ->add_option("journals", options->journals,
                   "The journal, as GET /_test/journal returns it; or several (one proxy per "
                   "service instance), judged as one fleet: merged in time order and renumbered")
      ->required();
  command->add_option("--operation-field", options->operation_field,
                      "The payload field the provider recorded as each create's operation (it "
                      "was started with --operation-field NAME): group requests by it. Without "
                      "it, operations are idempotency keys");
  command->add_option("--client-policy", options->client_policy,
                      "What the service promises, as for run: attempts=N, min-backoff=DURATION, "
                      "timeout=DURATION, on-ambiguous=lookup-first|same-key-retry. Default: "
                      "attempts 3, min-backoff 50ms, timeout 1s, lookup-first");
  command->add_option("--api", options->api,
                      "The API the journal's provider spoke (" + provider::api_shape_names() +
                          ", or a shape file): on an API without idempotency keys a re-sent "
                          "create is judged as the risk it is");
  command
      ->add_option("--fail-on", options->fail_on,
                   "Which failures make the exit status 1: policy (any, the default) or harm")
      ->capture_default_str()
      ->check(CLI::IsMember({"harm", "policy"}));
  command->add_option("--inconclusive", options->inconclusive, inconclusive_option_help())
      ->capture_default_str()
      ->check(CLI::IsMember({"not-met", "pass", "fail"}));
  for (const ReportFormat& format : report_formats()) {
    command->add_option("--" + std::string(format.option),
                        options->reports[std::string(format.option)], std::string(format.help));
  }
  command->callback([options, &exit_code] { exit_code = judge(*options); });
}

}  // namespace retryproof::scenarios
