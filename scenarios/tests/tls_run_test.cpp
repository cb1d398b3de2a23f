// `run --tls` and "tls": true, run as a user runs them: every provider serves HTTPS, and
// clients trust its CA through the environment alone. The reference client (cpp-httplib
// with OpenSSL) gets over HTTPS the verdicts it gets over plain HTTP, scenario by scenario;
// curl, Node's fetch, Python's urllib and requests, given nothing but the environment, reach
// the provider, each through the one variable its stack reads.
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

// One "tls": true scenario, one POST without faults, run with `command` as its client.
CatalogRun run_one_tls_create(const std::string& command, const TempDir& dir) {
  const auto scenario = dir.write("tls-success.json", R"({
  "name": "tls-success",
  "tls": true,
  "operations": [{"id": "fulfillment:order-1", "payload": {"orderId": "order-1"}}]
})");
  return run_retryproof({scenario.string(), "--client", "cmd:" + command}, dir);
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
  const CatalogRun run = run_one_tls_create("sh " + client.string(), dir);
  EXPECT_EQ(run.exit_code, 0) << run.output;
  ASSERT_EQ(run.report["scenarios"].size(), 1u) << run.output;
  EXPECT_EQ(run.report["scenarios"][0]["posts"], 1) << run.output;
  EXPECT_EQ(run.report["scenarios"][0]["met"], true) << run.output;
}

// A client of a stack services are written in, that trusts the CA through the one variable
// that stack reads: the others are unset before it starts, so if it got through, that variable
// did it; with none left, it must fail, or the test would prove nothing.
struct RealClient {
  const char* name;
  const char* variable;  // the one CA variable left set
  const char* file;      // its source, beside the wrapper
  const char* source;
  const char* run;  // the shell command that runs it
};

constexpr const char* kCaVariables =
    "SSL_CERT_FILE NODE_EXTRA_CA_CERTS REQUESTS_CA_BUNDLE CURL_CA_BUNDLE RETRYPROOF_CA_FILE";

const RealClient kRealClients[] = {
    {"node-fetch", "NODE_EXTRA_CA_CERTS", "client.mjs", R"js(
const operation = JSON.parse(process.env.RETRYPROOF_OPERATION);
const response = await fetch(`${process.env.RETRYPROOF_BASE_URL}/jobs`, {
  method: "POST",
  headers: { "Idempotency-Key": operation.operationId, "Content-Type": "application/json" },
  body: JSON.stringify(operation.payload),
});
if (!response.ok) throw new Error(`status ${response.status}`);
const job = await response.json();
console.log(JSON.stringify({ outcome: "succeeded", jobId: job.id }));
)js",
     "node client.mjs"},
    {"python-urllib", "SSL_CERT_FILE", "client.py", R"py(
import json, os, urllib.request
operation = json.loads(os.environ["RETRYPROOF_OPERATION"])
request = urllib.request.Request(
    os.environ["RETRYPROOF_BASE_URL"] + "/jobs", method="POST",
    data=json.dumps(operation["payload"]).encode(),
    headers={"Idempotency-Key": operation["operationId"], "Content-Type": "application/json"})
with urllib.request.urlopen(request, timeout=10) as response:
    job = json.load(response)
print(json.dumps({"outcome": "succeeded", "jobId": job["id"]}))
)py",
     "python3 client.py"},
    // Debian's python3-requests serves /usr/bin/python3; a python3 first on PATH (pyenv, a
    // venv) may have its own requests. The first that has one runs the client.
    {"python-requests", "REQUESTS_CA_BUNDLE", "client.py", R"py(
import json, os, requests
operation = json.loads(os.environ["RETRYPROOF_OPERATION"])
response = requests.post(os.environ["RETRYPROOF_BASE_URL"] + "/jobs", json=operation["payload"],
                         headers={"Idempotency-Key": operation["operationId"]}, timeout=10)
response.raise_for_status()
print(json.dumps({"outcome": "succeeded", "jobId": response.json()["id"]}))
)py",
     "for python in python3 /usr/bin/python3; do \"$python\" -c 'import requests' 2>/dev/null && "
     "exec \"$python\" client.py; done; echo 'no python3 with requests (scripts/setup.sh installs "
     "python3-requests)' >&2; exit 3"},
};

// `client` run under `run` on a "tls": true scenario with only `kept` of the CA variables set
// (none: an empty name): whether the scenario was met, and what run printed.
std::pair<bool, std::string> run_real_client(const RealClient& client, const std::string& kept) {
  const TempDir dir(std::string("retryproof-tls-") + client.name);
  dir.write(client.file, client.source);
  const auto wrapper = dir.write("client.sh", std::string(R"sh(set -eu
case "$RETRYPROOF_BASE_URL" in https://*) ;; *) echo "not https: $RETRYPROOF_BASE_URL" >&2; exit 3;; esac
for variable in )sh") + kCaVariables + R"sh(; do
  [ "$variable" = ")sh" + kept + R"sh(" ] || unset "$variable"
done
cd "$(dirname "$0")"
)sh" + client.run + "\n");
  const CatalogRun run = run_one_tls_create("sh " + wrapper.string(), dir);
  const json& result = run.report["scenarios"][0];
  const bool met = run.exit_code == 0 && result["met"] == true && result["posts"] == 1;
  return {met, run.output};
}

TEST(TlsRun, NodeFetchPythonUrllibAndRequestsTrustTheProviderThroughTheirOwnVariableAlone) {
  for (const RealClient& client : kRealClients) {
    const auto [met, output] = run_real_client(client, client.variable);
    EXPECT_TRUE(met) << client.name << " through " << client.variable << ":\n" << output;
    const auto [met_untrusted, refused] = run_real_client(client, "");
    EXPECT_FALSE(met_untrusted) << client.name << " got through with no CA variable set:\n"
                                << refused;
  }
}

}  // namespace
}  // namespace retryproof::scenarios
