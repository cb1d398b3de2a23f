#include "client_under_test/client_command.hpp"

#include <cstdlib>
#include <iostream>
#include <memory>
#include <random>

#include "client_under_test/http_transport.hpp"
#include "client_under_test/retrying_client.hpp"
#include "client_under_test/session_client.hpp"
#include "client_under_test/settings_contract.hpp"
#include "common/duration.hpp"

namespace retryproof::client {
namespace {

struct ClientOptions {
  std::string base_url;
  std::string operation_id;
  std::string payload;
  std::string state_dir;
  std::string ca_file;
  int attempts = kDefaultSettings.attempts;
  std::string base_delay = format_duration(kDefaultSettings.base_delay);
  std::string max_delay = format_duration(kDefaultSettings.max_delay);
  std::string timeout = format_duration(kDefaultSettings.timeout);
  std::string mutant;
  std::optional<std::uint64_t> seed;
  int time_scale = 1;
  bool verbose = false;
  bool session = false;
};

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::string from_environment(const std::string& given, const char* variable) {
  if (!given.empty()) return given;
  const char* value = std::getenv(variable);
  return value ? value : "";
}

// --operation-id and --payload, or RETRYPROOF_OPERATION: {"operationId": ..., "payload": {...}}.
Operation read_operation(const ClientOptions& options) {
  Operation operation;
  if (!options.operation_id.empty()) {
    operation.operation_id = options.operation_id;
    operation.payload =
        nlohmann::json::parse(options.payload.empty() ? "{}" : options.payload, nullptr, false);
    if (!operation.payload.is_object()) throw UsageError("--payload must be a JSON object");
    return operation;
  }
  const std::string text = from_environment("", "RETRYPROOF_OPERATION");
  if (text.empty()) {
    throw UsageError("name the operation: --operation-id (and --payload), or RETRYPROOF_OPERATION");
  }
  const auto parsed = nlohmann::json::parse(text, nullptr, false);
  if (!parsed.is_object() || !parsed.contains("operationId") ||
      !parsed["operationId"].is_string() ||
      parsed["operationId"].get_ref<const std::string&>().empty()) {
    throw UsageError("RETRYPROOF_OPERATION must be {\"operationId\": \"...\", \"payload\": {...}}");
  }
  operation.operation_id = parsed["operationId"];
  operation.payload = parsed.value("payload", nlohmann::json::object());
  if (!operation.payload.is_object())
    throw UsageError("RETRYPROOF_OPERATION.payload must be an object");
  return operation;
}

void print_history(const ClientResult& result) {
  for (const Step& step : result.history) {
    std::cerr << "[client] #" << step.attempt << " t=" << step.at.count() << "ms " << step.request
              << " key=" << step.key << " -> " << step.result << " (" << step.classification
              << "): " << step.decision;
    if (step.wait > Millis(0)) std::cerr << "; wait " << step.wait.count() << "ms";
    std::cerr << '\n';
  }
}

// RETRYPROOF_CLIENT when the harness gives it, then each flag that was given on top.
ClientSettings read_settings(const ClientOptions& options, const CLI::App& command) {
  ClientSettings settings = kDefaultSettings;
  if (const char* contract = std::getenv("RETRYPROOF_CLIENT")) {
    settings = settings_from_contract(contract, settings);
  }
  if (command.count("--attempts") > 0) settings.attempts = options.attempts;
  if (command.count("--base-delay") > 0) settings.base_delay = parse_duration(options.base_delay);
  if (command.count("--max-delay") > 0) settings.max_delay = parse_duration(options.max_delay);
  if (command.count("--timeout") > 0) settings.timeout = parse_duration(options.timeout);
  return settings;
}

// --seed, else RETRYPROOF_SEED (which a session is given instead of a flag), else random.
std::uint64_t session_seed(const ClientOptions& options) {
  if (options.seed) return *options.seed;
  const std::string text = from_environment("", "RETRYPROOF_SEED");
  if (text.empty()) return std::random_device{}();
  try {
    std::size_t used = 0;
    const std::uint64_t seed = std::stoull(text, &used);
    if (used == text.size()) return seed;
  } catch (const std::exception&) {
  }
  throw UsageError("RETRYPROOF_SEED must be an unsigned integer, not \"" + text + "\"");
}

// --session: operations from standard input, tagged outcome lines (docs/sessions.md).
int run_session(const ClientOptions& options, const CLI::App& command) {
  SessionConfig config;
  try {
    if (!options.operation_id.empty() || !options.payload.empty())
      throw UsageError(
          "--session reads its operations from standard input: drop --operation-id "
          "and --payload");
    config.base_url = from_environment(options.base_url, "RETRYPROOF_BASE_URL");
    if (config.base_url.empty())
      throw UsageError("name the provider: --base-url or RETRYPROOF_BASE_URL");
    config.ca_file = from_environment(options.ca_file, "RETRYPROOF_CA_FILE");
    config.state_dir = from_environment(options.state_dir, "RETRYPROOF_STATE_DIR");
    config.settings = read_settings(options, command);
    if (!options.mutant.empty()) config.mutant = parse_mutant(options.mutant);
    config.seed = session_seed(options);
    config.scale = TimeScale(options.time_scale);
    config.verbose = options.verbose;
  } catch (const std::exception& error) {
    std::cerr << "retryproof client: " << error.what() << '\n';
    return 2;
  }
  return serve_session(config, std::cin, std::cout, std::cerr);
}

// --session, or RETRYPROOF_SESSION=1 with no operation named: the harness starts a session
// client with that variable (docs/sessions.md). A client that a session's process runs for
// one operation inherits it, but names its operation, and runs that one.
bool session_mode(const ClientOptions& options) {
  if (options.session) return true;
  return from_environment("", "RETRYPROOF_SESSION") == "1" && options.operation_id.empty() &&
         from_environment("", "RETRYPROOF_OPERATION").empty();
}

int run_client(const ClientOptions& options, const CLI::App& command) {
  if (session_mode(options)) return run_session(options, command);
  Operation operation;
  ClientSettings settings;
  Mutant mutant = Mutant::none;
  std::string base_url;
  std::string state_dir;
  std::string ca_file;
  try {
    base_url = from_environment(options.base_url, "RETRYPROOF_BASE_URL");
    ca_file = from_environment(options.ca_file, "RETRYPROOF_CA_FILE");
    if (base_url.empty()) throw UsageError("name the provider: --base-url or RETRYPROOF_BASE_URL");
    state_dir = from_environment(options.state_dir, "RETRYPROOF_STATE_DIR");
    operation = read_operation(options);
    settings = read_settings(options, command);
    if (!options.mutant.empty()) mutant = parse_mutant(options.mutant);
  } catch (const std::exception& error) {
    std::cerr << "retryproof client: " << error.what() << '\n';
    return 2;
  }

  try {
    std::unique_ptr<IntentLedger> ledger;
    if (state_dir.empty()) {
      ledger = std::make_unique<InMemoryIntentLedger>();
    } else {
      ledger =
          std::make_unique<SqliteIntentLedger>(std::filesystem::path(state_dir) / "intents.sqlite");
    }
    const TimeScale scale(options.time_scale);
    HttpTransport transport(base_url, scale, ca_file);
    SystemClock clock(scale);
    SeededRandom random(options.seed ? *options.seed : std::random_device{}());
    RetryingClient client(settings, {transport, clock, clock, random, *ledger}, mutant);
    const ClientResult result = client.run(operation);
    if (options.verbose) print_history(result);
    std::cout << result.outcome_line().dump() << std::endl;
  } catch (const std::exception& error) {
    std::cerr << "retryproof client: " << error.what() << '\n';
    return 1;
  }
  return 0;
}

}  // namespace

void add_client_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<ClientOptions>();
  CLI::App* command = app.add_subcommand(
      "client",
      "Run one operation with the reference retry-safe client (or a mutant) against a provider, "
      "and print one JSON outcome line: {\"outcome\":\"succeeded\",\"jobId\":...}, "
      "{\"outcome\":\"failed\",\"reason\":...} or {\"outcome\":\"unknown\",...}. Reads the "
      "RETRYPROOF_* variables of the external-client contract when flags are absent: its "
      "settings come from RETRYPROOF_CLIENT, and a flag given here wins over it.");
  command->add_option("--base-url", options->base_url,
                      "The provider, e.g. http://127.0.0.1:4040 (or RETRYPROOF_BASE_URL)");
  command->add_option("--ca-file", options->ca_file,
                      "For an https:// provider: the CA certificate (PEM) to trust instead of the "
                      "system's (or RETRYPROOF_CA_FILE)");
  command->add_option("--operation-id", options->operation_id,
                      "Business identity of the operation; the idempotency key derives from it "
                      "(or RETRYPROOF_OPERATION's operationId)");
  command->add_option("--payload", options->payload, "The job's JSON body (default {})");
  command->add_option("--state-dir", options->state_dir,
                      "Directory for the durable intent ledger (or RETRYPROOF_STATE_DIR); "
                      "without one, intents live in memory and a crash forgets them");
  command
      ->add_option("--attempts", options->attempts,
                   "Total POSTs at most (else RETRYPROOF_CLIENT's attempts)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  command->add_option("--base-delay", options->base_delay, "First backoff step (250ms, 1s, ...)")
      ->capture_default_str();
  command->add_option("--max-delay", options->max_delay, "Cap of any backoff step")
      ->capture_default_str();
  command->add_option("--timeout", options->timeout, "Per-request timeout")->capture_default_str();
  command
      ->add_option("--mutant", options->mutant, "Run a deliberately broken copy: " + mutant_help())
      ->check(CLI::IsMember([] {
        std::vector<std::string> names;
        for (const Mutant mutant : all_mutants())
          names.push_back(to_string(mutant));
        return names;
      }()));
  command->add_option("--seed", options->seed, "Seed for the backoff jitter (default: random)");
  command
      ->add_option("--time-scale", options->time_scale,
                   "Run N times faster: the client's clock, its backoff waits and its request "
                   "timeouts, as `retryproof run --time-scale N` runs the provider")
      ->capture_default_str()
      ->check(CLI::Range(1, TimeScale::kMaxFactor));
  command->add_flag("--verbose", options->verbose, "Print the attempt history to standard error");
  command->add_flag("--session", options->session,
                    "Serve many operations as one long-lived instance (docs/sessions.md): one "
                    "JSON line per operation on standard input, {\"id\",\"operationId\","
                    "\"payload\"}; each runs concurrently and its outcome line, tagged with its "
                    "\"id\", goes to standard output when done. The seed is --seed or "
                    "RETRYPROOF_SEED. RETRYPROOF_SESSION=1, with no operation named, says the "
                    "same");
  command->callback([options, command, &exit_code] { exit_code = run_client(*options, *command); });
}

}  // namespace retryproof::client
