#include "embed/cpp/sandbox.hpp"

#include <algorithm>
#include <sstream>
#include <stdexcept>

#include "provider/provider_server.hpp"
#include "scenarios/judge/traffic.hpp"
#include "scenarios/judge/verdicts_endpoint.hpp"
#include "scenarios/reports/reports.hpp"

namespace retryproof::testing {

Verdicts::Verdicts(scenarios::ScenarioResult result, std::string replay)
    : result_(std::move(result)), replay_(std::move(replay)) {}

std::string Verdicts::report() const {
  std::ostringstream out;
  scenarios::write_terminal_report(out,
                                   {.seed = result_.seed,
                                    .client = result_.client,
                                    .results = {result_},
                                    .subject = "sandbox: the traffic so far",
                                    .replay = replay_},
                                   scenarios::Colour::off);
  return out.str();
}

scenarios::VerdictStatus Verdicts::status(std::string_view verdict) const {
  const auto& verdicts = result_.verdicts;
  const auto found = std::find_if(verdicts.begin(), verdicts.end(),
                                  [&](const scenarios::Verdict& v) { return v.id == verdict; });
  if (found == verdicts.end()) {
    throw std::invalid_argument("verdict \"" + std::string(verdict) +
                                "\" is not judged from traffic alone");
  }
  return found->status;
}

Sandbox::Sandbox() : Sandbox(SandboxOptions{}) {}

Sandbox::Sandbox(const SandboxOptions& options) : operation_field_(options.operation_field) {
  provider::ProviderConfig config{.seed = options.seed,
                                  .profile = options.profile,
                                  .enforce_keys = options.enforce_keys,
                                  .control_endpoints = {scenarios::verdicts_endpoint()}};
  if (!operation_field_.empty()) config.operation_field = operation_field_;
  server_ = std::make_unique<provider::ProviderServer>(std::move(config),
                                                       provider::ServerOptions{.port = 0});
}

Sandbox::~Sandbox() = default;

std::string Sandbox::url() const {
  return server_->base_url();
}

void Sandbox::control(const std::string& method, const std::string& path, const std::string& body) {
  // Through the control plane itself, without a socket: the same validation, the same words.
  const provider::Decision answer =
      server_->core().handle({.method = method, .path = path, .body = body}, server_->now());
  if (answer.status == 200) return;
  const auto error = nlohmann::json::parse(answer.body, nullptr, false);
  throw std::invalid_argument(
      path + ": " + (error.contains("detail") ? error["detail"].get<std::string>() : answer.body));
}

void Sandbox::faults(const std::vector<std::string>& names) {
  plan({{"faults", names}});
}

void Sandbox::plan(const nlohmann::json& plan) {
  control("POST", "/_test/faults", plan.dump());
}

void Sandbox::reset() {
  control("POST", "/_test/reset", "{}");
}

std::vector<provider::JobRecord> Sandbox::jobs() const {
  return server_->core().jobs();
}

std::vector<provider::JournalEntry> Sandbox::journal() const {
  return server_->core().journal();
}

Verdicts Sandbox::verdicts(const std::string& policy) const {
  const scenarios::TrafficOptions options{.operation_field = operation_field_,
                                          .declared = scenarios::parse_client_policy(policy),
                                          .declare_with = "policy=",  // verdicts(policy)'s
                                          .name = "sandbox"};
  std::string live = url() + "/_test/verdicts";
  if (!policy.empty()) live += "?policy=" + policy;
  return Verdicts(scenarios::judge_traffic(journal(), options), "curl -s '" + live + "'");
}

}  // namespace retryproof::testing
