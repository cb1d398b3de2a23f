#include "scenarios/commands/demo_command.hpp"

#include <httplib.h>

#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include "provider/provider_server.hpp"

namespace retryproof::scenarios {
namespace {

using provider::ProviderServer;

class Demo {
 public:
  explicit Demo(ProviderServer& server) : server_(server), client_(server.base_url()) {
    client_.set_read_timeout(5, 0);
  }

  void install(const std::string& fault) {
    client_.Post("/_test/faults", nlohmann::json{{"faults", {fault}}}.dump(), "application/json");
  }

  void post(const std::string& key, const std::string& order) {
    const nlohmann::json payload = {{"orderId", order}, {"amount", 120}};
    std::cout << "   client: POST /jobs key=" << key << '\n';
    const auto result =
        client_.Post("/jobs", {{"Idempotency-Key", key}}, payload.dump(), "application/json");
    report(result);
  }

  void lookup(const std::string& key) {
    std::cout << "   client: GET /jobs/by-idempotency-key/" << key << '\n';
    report(client_.Get("/jobs/by-idempotency-key/" + key));
  }

  void count(const std::string& order, const std::string& meaning) {
    const nlohmann::json listing = server_.core().jobs_json();
    int jobs = 0;
    for (const auto& job : listing["jobs"])
      jobs += job["orderId"] == order ? 1 : 0;
    std::cout << "   jobs for " << order << ": " << jobs << "  (" << meaning << ")\n\n";
  }

 private:
  static void report(const httplib::Result& result) {
    if (!result) {
      std::cout << "   client: no response (httplib error: " << httplib::to_string(result.error())
                << "); was the job created? only a lookup by key can tell\n";
      return;
    }
    std::cout << "   client: " << result->status << ' ' << result->body
              << (result->has_header("Idempotent-Replayed") ? "  (replayed)" : "") << '\n';
  }

  ProviderServer& server_;
  httplib::Client client_;
};

int run_demo() {
  provider::ProviderConfig config;
  config.log = [](const std::string& line) { std::cout << "   " << line << '\n'; };
  ProviderServer server(config, {.host = "127.0.0.1", .port = 0});
  Demo demo(server);
  std::cout << "retryproof demo: a provider on " << server.base_url()
            << ", driven through the three well-known situations\n\n";

  std::cout << "A  fail-before-commit: the provider fails before storing anything\n";
  demo.install("fail-before-commit");
  demo.post("fulfillment:order-A", "order-A");
  demo.post("fulfillment:order-A", "order-A");
  demo.count("order-A", "the retry with the same key created it once");

  std::cout << "B  commit-then-error: the provider stores the job, then answers 503\n";
  demo.install("commit-then-error");
  demo.post("fulfillment:order-B", "order-B");
  demo.post("fulfillment:order-B", "order-B");
  demo.count("order-B", "the retry was a replay of the stored job");

  std::cout << "B' the anti-pattern: the same situation with a fresh key per attempt\n";
  demo.install("commit-then-error");
  demo.post("attempt-1:order-B2", "order-B2");
  demo.post("attempt-2:order-B2", "order-B2");
  demo.count("order-B2", "a duplicate effect: what retryproof exists to catch");

  std::cout << "C  commit-then-drop: the job is stored, then the connection closes unanswered\n";
  demo.install("commit-then-drop");
  demo.post("fulfillment:order-C", "order-C");
  demo.lookup("fulfillment:order-C");
  demo.count("order-C", "the lookup by key found it; no second POST was needed");

  server.stop();
  return 0;
}

}  // namespace

void add_demo_command(CLI::App& app, int& exit_code) {
  CLI::App* command = app.add_subcommand(
      "demo", "Start a provider on a free port and narrate the three well-known situations");
  command->callback([&exit_code] { exit_code = run_demo(); });
}

}  // namespace retryproof::scenarios
