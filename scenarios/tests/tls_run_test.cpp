// `run --tls` and "tls": true, run as a user runs them: every provider serves HTTPS, and
// clients trust its CA through the environment alone. The reference client (cpp-httplib
// with OpenSSL) gets over HTTPS the verdicts it gets over plain HTTP, scenario by scenario;
// curl, given nothing but the environment, reaches the provider.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/temp_dir.hpp"
#include "scenarios/model/scenario.hpp"
#include "scenarios/process/child_process.hpp"

namespace retryproof::scenarios {
namespace {

using nlohmann::json;
using std::chrono::minutes;

struct CatalogRun {
  int exit_code = -1;
  std::string output;
  json report;
};

CatalogRun run_retryproof(std::vector<std::string> arguments, const TempDir& dir) {
  const std::string report = (dir.path() / "report.json").string();
  std::vector<std::string> argv = {RETRYPROOF_BINARY, "run", "--jobs", "2", "--json", report};
  argv.insert(argv.end(), arguments.begin(), arguments.end());
  ChildProcess child(argv);
  const auto status = child.wait(minutes(10));
  CatalogRun run{status ? status->code : -1, child.standard_output() + child.standard_error(), {}};
  std::ifstream in(report);
  run.report = json::parse(in, nullptr, false);
  return run;
}

// Each scenario's verdicts, by id: what must not change when only the transport does.
std::map<std::string, std::map<std::string, std::string>> verdicts_of(const json& report) {
  std::map<std::string, std::map<std::string, std::string>> verdicts;
  for (const json& scenario : report["scenarios"]) {
    auto& of_scenario = verdicts[scenario["name"].get<std::string>()];
    for (const json& verdict : scenario["verdicts"])
      of_scenario[verdict["id"].get<std::string>()] = verdict["status"].get<std::string>();
  }
  return verdicts;
}

TEST(TlsRun, ATlsFieldIsReadAndMustBeTrueOrFalse) {
  const json minimal = {{"name", "m"}, {"operations", {{{"id", "o"}}}}};
  EXPECT_FALSE(scenario_from_json(minimal, "inline").tls);
  json with_tls = minimal;
  with_tls["tls"] = true;
  EXPECT_TRUE(scenario_from_json(with_tls, "inline").tls);
  with_tls["tls"] = "yes";
  try {
    scenario_from_json(with_tls, "inline");
    ADD_FAILURE() << "\"tls\": \"yes\" was accepted";
  } catch (const ScenarioError& error) {
    EXPECT_NE(std::string(error.what()).find("$.tls: expected true or false"), std::string::npos)
        << error.what();
  }
}

TEST(TlsRun, TheReferenceClientGetsTheSameVerdictsOverTlsAsOverPlainHttp) {
  const TempDir plain_dir("retryproof-plain"), tls_dir("retryproof-tls");
  const CatalogRun plain = run_retryproof({RETRYPROOF_CATALOG_DIR}, plain_dir);
  const CatalogRun tls = run_retryproof({RETRYPROOF_CATALOG_DIR, "--tls"}, tls_dir);
  ASSERT_EQ(plain.exit_code, 0) << plain.output;
  EXPECT_EQ(tls.exit_code, 0) << tls.output;
  ASSERT_FALSE(verdicts_of(plain.report).empty());
  EXPECT_EQ(verdicts_of(tls.report), verdicts_of(plain.report));
  EXPECT_NE(tls.output.find("met their expectations"), std::string::npos) << tls.output;
  EXPECT_NE(tls.output.find(" --tls\n"), std::string::npos) << "the replay line says --tls";
}

// A client that trusts the CA only through the environment: curl reads CURL_CA_BUNDLE, and
// nothing on its command line names a certificate. One POST, as a scenario without faults
// needs; the JSON is read with python3, as the contract's examples do.
TEST(TlsRun, CurlTrustsTheProviderThroughTheEnvironmentAlone) {
  const TempDir dir("retryproof-tls-curl");
  const auto client = dir.write("client.sh", R"sh(set -eu
test -n "$CURL_CA_BUNDLE" && test -n "$SSL_CERT_FILE" && test -n "$REQUESTS_CA_BUNDLE"
test -s "$NODE_EXTRA_CA_CERTS" && test -s "$RETRYPROOF_CA_FILE"
case "$RETRYPROOF_BASE_URL" in https://*) ;; *) echo "not https: $RETRYPROOF_BASE_URL" >&2; exit 3;; esac
field() { printf '%s' "$RETRYPROOF_OPERATION" | python3 -c "import json,sys; d=json.load(sys.stdin); print($1)";
}
key=$(field 'd["operationId"]')
body=$(curl -sS --fail -X POST -H "Idempotency-Key: $key" -H 'Content-Type: application/json' \
  --data "$(field 'json.dumps(d["payload"])')" "$RETRYPROOF_BASE_URL/jobs")
id=$(printf '%s' "$body" | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
printf '{"outcome":"succeeded","jobId":"%s"}\n' "$id"
)sh");
  const auto scenario = dir.write("plain-success.json", R"({
  "name": "plain-success",
  "tls": true,
  "operations": [{"id": "fulfillment:order-1", "payload": {"orderId": "order-1"}}]
})");
  const CatalogRun run =
      run_retryproof({scenario.string(), "--client", "cmd:sh " + client.string()}, dir);
  EXPECT_EQ(run.exit_code, 0) << run.output;
  ASSERT_EQ(run.report["scenarios"].size(), 1u) << run.output;
  EXPECT_EQ(run.report["scenarios"][0]["posts"], 1) << run.output;
  EXPECT_EQ(run.report["scenarios"][0]["met"], true) << run.output;
}

}  // namespace
}  // namespace retryproof::scenarios
