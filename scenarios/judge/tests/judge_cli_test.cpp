// `retryproof judge` and GET /_test/verdicts as a user runs them: a real process, a journal
// in a file, reports written, exit statuses, and errors that name the file, entry and field.
#include <gtest/gtest.h>
#include <httplib.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <tuple>

#include "common/temp_dir.hpp"
#include "provider/provider_core.hpp"
#include "scenarios/process/child_process.hpp"

namespace retryproof::scenarios {
namespace {

using nlohmann::json;
using std::chrono::seconds;

const std::string kBinary = RETRYPROOF_BINARY;

// A journal as GET /_test/journal serves it, from a provider core that records orderId.
// Seeded apart, two cores stand for two instances that do not mint the same job ids.
json journal_of(const std::vector<std::string>& faults,
                const std::vector<std::pair<std::string, json>>& creates, bool record = true,
                std::uint64_t seed = 0) {
  provider::ProviderConfig config{
      .seed = seed, .initial_plan = provider::FaultPlan::from_json({{"faults", faults}})};
  if (record) config.operation_field = "orderId";
  provider::ProviderCore core(config);
  Millis now{0};
  for (const auto& [key, payload] : creates) {
    now += Millis(200);
    provider::HttpRequest request{.method = "POST", .path = "/jobs", .body = payload.dump()};
    request.headers.emplace("Idempotency-Key", key);
    core.handle(request, now);
  }
  return core.journal_json();
}

const json kOrder = {{"orderId", "o-1"}, {"amount", 5}};

struct Judged {
  ExitStatus status;
  std::string out;
  std::string err;
};

Judged judge(const std::vector<std::string>& arguments) {
  std::vector<std::string> argv = {kBinary, "judge"};
  argv.insert(argv.end(), arguments.begin(), arguments.end());
  ChildProcess child(argv);
  const auto status = child.wait(seconds(30));
  if (!status) ADD_FAILURE() << "judge did not finish: " << child.standard_error();
  return {status.value_or(ExitStatus{.code = -1}), child.standard_output(), child.standard_error()};
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(JudgeCommand, ACleanJournalExitsZeroWithEveryTrafficVerdict) {
  TempDir dir("judge-cli");
  const auto file = dir.write(
      "journal.json", journal_of({"commit-then-error"}, {{"k", kOrder}, {"k", kOrder}}).dump());
  const Judged judged = judge({file.string(), "--operation-field", "orderId"});
  EXPECT_EQ(judged.status.code, 0) << judged.out << judged.err;
  EXPECT_TRUE(contains(judged.out,
                       "retryproof judge: traffic in " + file.string() + ", operations by orderId"))
      << judged.out;
  EXPECT_TRUE(contains(judged.out, "PASS  traffic")) << judged.out;
  EXPECT_TRUE(contains(judged.out, "orderId=o-1")) << judged.out;
  EXPECT_TRUE(contains(judged.out, "no-duplicate-effect")) << judged.out;
  EXPECT_FALSE(contains(judged.out, "\n    truthful-outcome")) << "it needs an outcome line";
  EXPECT_TRUE(contains(judged.out, "replay: retryproof judge")) << judged.out;
}

TEST(JudgeCommand, ViolationsExitOneAndEveryReportFormatIsWritten) {
  TempDir dir("judge-cli");
  const auto file = dir.write(
      "journal.json",
      journal_of({"commit-then-drop"}, {{"attempt-1", kOrder}, {"attempt-2", kOrder}}).dump());
  const auto report = [&](const char* name) { return (dir.path() / name).string(); };
  const Judged judged =
      judge({file.string(), "--operation-field", "orderId", "--json", report("r.json"), "--junit",
             report("r.xml"), "--markdown", report("r.md")});
  EXPECT_EQ(judged.status.code, 1) << judged.out << judged.err;
  EXPECT_TRUE(contains(judged.out, "FAIL (harm)  traffic")) << judged.out;
  EXPECT_TRUE(contains(judged.out, "operation orderId=o-1 has 2 jobs")) << judged.out;
  // What judge knows: no client ran, and there is no seed.
  EXPECT_TRUE(contains(judged.out, "  jobs 2, POSTs 2, judged by attempts 3")) << judged.out;
  EXPECT_FALSE(contains(judged.out, "seed")) << judged.out;

  const json written = json::parse(read_file(report("r.json")));
  EXPECT_EQ(written["summary"]["withHarm"], 1);
  const json& verdicts = written["scenarios"][0]["verdicts"];
  ASSERT_TRUE(verdicts.is_array());
  EXPECT_EQ(verdicts[0]["id"], "no-duplicate-effect");
  EXPECT_EQ(verdicts[0]["status"], "fail");
  EXPECT_EQ(verdicts[0]["evidence"], json({1, 2}));
  EXPECT_TRUE(contains(read_file(report("r.xml")), R"(name="no-duplicate-effect")"));
  EXPECT_TRUE(contains(read_file(report("r.md")), "sequenceDiagram"));
}

// Five requests of one order: a 503 after the commit, then four replays of its job.
json five_clean_entries() {
  return journal_of({"commit-then-error"},
                    {{"k", kOrder}, {"k", kOrder}, {"k", kOrder}, {"k", kOrder}, {"k", kOrder}});
}

Judged judge_written(TempDir& dir, const json& journal, std::vector<std::string> more = {}) {
  const auto file = dir.write("journal.json", journal.dump());
  // Five creates of one order are more than the default budget: this one allows them.
  std::vector<std::string> arguments = {file.string(), "--operation-field", "orderId",
                                        "--client-policy", "attempts=5"};
  arguments.insert(arguments.end(), more.begin(), more.end());
  return judge(arguments);
}

TEST(JudgeCommand, AJournalWithASeqRemovedIsInconclusiveNamingIt) {
  TempDir dir("judge-cli");
  const json whole = five_clean_entries();
  EXPECT_EQ(judge_written(dir, whole).status.code, 0) << "whole, it is judged clean";
  json gap = whole;
  gap["entries"].erase(2);  // seq 3
  gap["count"] = 4;
  const Judged judged = judge_written(dir, gap);
  EXPECT_EQ(judged.status.code, 3) << judged.out << judged.err;
  EXPECT_TRUE(contains(judged.out, "INCONCLUSIVE  traffic")) << judged.out;
  EXPECT_TRUE(contains(judged.out, "seq 3 is missing from the journal (not in the journal)"))
      << judged.out;
  EXPECT_TRUE(contains(judged.out, "exit 3: nothing failed, but 1 scenario could not be judged"))
      << judged.out;
  EXPECT_EQ(judge_written(dir, gap, {"--inconclusive", "pass"}).status.code, 0);
  EXPECT_EQ(judge_written(dir, gap, {"--inconclusive", "fail"}).status.code, 1);
}

TEST(JudgeCommand, AJournalCutShortOfItsCountIsInconclusive) {
  TempDir dir("judge-cli");
  json cut = five_clean_entries();
  cut["entries"].erase(cut["entries"].begin() + 2, cut["entries"].end());  // 2 of its 5
  const Judged judged = judge_written(dir, cut);
  EXPECT_EQ(judged.status.code, 3) << judged.out << judged.err;
  EXPECT_TRUE(contains(judged.out, "seqs from 3 on are missing from the journal")) << judged.out;
}

TEST(JudgeCommand, AnEmptyJournalIsInconclusiveNotClean) {
  TempDir dir("judge-cli");
  const Judged judged = judge_written(dir, json{{"count", 0}, {"entries", json::array()}});
  EXPECT_EQ(judged.status.code, 3) << judged.out << judged.err;
  EXPECT_TRUE(contains(judged.out, "the journal holds no entries: there is nothing to judge"))
      << judged.out;
}

TEST(JudgeCommand, AFailureWhoseProofIsWholeStillFailsBesideAGap) {
  TempDir dir("judge-cli");
  // Two keys for one order: a duplicate, proven by seqs 1 and 2 whatever came after them.
  json duplicated = journal_of({}, {{"a", kOrder}, {"b", kOrder}, {"b", kOrder}, {"b", kOrder}});
  duplicated["entries"].erase(2);  // seq 3, after the proof
  duplicated["count"] = 3;
  const Judged judged = judge_written(dir, duplicated);
  EXPECT_EQ(judged.status.code, 1) << "a failure whose proof is whole still fails: " << judged.out;
  EXPECT_TRUE(contains(judged.out, "FAIL (harm)  traffic")) << judged.out;
}

TEST(JudgeCommand, FailOnHarmLetsAPolicyFailurePassAndThePolicyIsTheDeclaredOne) {
  TempDir dir("judge-cli");
  // Three creates 200 ms apart: over a budget of two, without harm.
  const auto file =
      dir.write("journal.json", journal_of({"fail-before-commit", "fail-before-commit"},
                                           {{"k", kOrder}, {"k", kOrder}, {"k", kOrder}})
                                    .dump());
  EXPECT_EQ(judge({file.string(), "--client-policy", "attempts=3"}).status.code, 0);
  const Judged strict = judge({file.string(), "--client-policy", "attempts=2"});
  EXPECT_EQ(strict.status.code, 1) << strict.out;
  EXPECT_TRUE(contains(strict.out, "attempt-budget")) << strict.out;
  EXPECT_EQ(
      judge({file.string(), "--client-policy", "attempts=2", "--fail-on", "harm"}).status.code, 0);
}

TEST(JudgeCommand, BadInputExitsTwoNamingTheFileTheEntryAndTheField) {
  TempDir dir("judge-cli");
  const Judged missing = judge({(dir.path() / "nope.json").string()});
  EXPECT_EQ(missing.status.code, 2);
  EXPECT_TRUE(contains(missing.err, "nope.json: cannot be read")) << missing.err;

  const auto broken = dir.write("broken.json", "{\"entries\": [");
  const Judged not_json = judge({broken.string()});
  EXPECT_EQ(not_json.status.code, 2);
  EXPECT_TRUE(contains(not_json.err, "broken.json: not valid JSON")) << not_json.err;

  json journal = journal_of({}, {{"k", kOrder}, {"k", kOrder}});
  journal["entries"][1]["status"] = "201";
  const auto wrong = dir.write("wrong.json", journal.dump());
  const Judged bad_entry = judge({wrong.string()});
  EXPECT_EQ(bad_entry.status.code, 2);
  EXPECT_TRUE(contains(bad_entry.err,
                       "wrong.json: entries[1]: \"status\": expected a whole "
                       "number or null"))
      << bad_entry.err;

  const auto unrecorded =
      dir.write("unrecorded.json", journal_of({}, {{"k", kOrder}}, false).dump());
  const Judged no_field = judge({unrecorded.string(), "--operation-field", "orderId"});
  EXPECT_EQ(no_field.status.code, 2);
  EXPECT_TRUE(contains(no_field.err, "start the provider with --operation-field orderId"))
      << no_field.err;
  EXPECT_EQ(judge({unrecorded.string()}).status.code, 0) << "without the field: by key";

  const Judged bad_policy = judge({unrecorded.string(), "--client-policy", "attempts=none"});
  EXPECT_EQ(bad_policy.status.code, 2);
  EXPECT_TRUE(contains(bad_policy.err, "attempts")) << bad_policy.err;
}

// `curl -o journal.json` against a provider with a control token, without the token, saves
// the 401's body: judging it as an empty journal would be a clean verdict on nothing.
TEST(JudgeCommand, ASavedRefusalIsAnErrorNamingTheFixNeverAnEmptyJournal) {
  TempDir dir("judge-cli");
  provider::ProviderCore core({.seed = 1, .control_token = "T", .operation_field = "orderId"});
  for (const char* key : {"a", "b"}) {  // two keys for one order: a duplicate
    provider::HttpRequest create{.method = "POST", .path = "/jobs", .body = kOrder.dump()};
    create.headers.emplace("Idempotency-Key", key);
    core.handle(create, Millis(0));
  }
  const auto fetch = [&](std::optional<std::string> token) {
    provider::HttpRequest request{.method = "GET", .path = "/_test/journal"};
    if (token) request.headers.emplace("Authorization", "Bearer " + *token);
    return core.handle(request, Millis(0)).body;
  };
  for (const auto& [token, words] : std::vector<std::pair<std::optional<std::string>, std::string>>{
           {std::nullopt, "the control token is missing"},
           {"wrong", "the control token is wrong"}}) {
    const auto saved = dir.write("refused.json", fetch(token));
    const Judged refused = judge({saved.string(), "--operation-field", "orderId"});
    EXPECT_EQ(refused.status.code, 2) << refused.out << refused.err;
    EXPECT_TRUE(contains(refused.err,
                         "refused.json: not a journal but the control plane's "
                         "refusal (unauthorized: " +
                             words))
        << refused.err;
    EXPECT_TRUE(contains(refused.err, "the traffic is unknown, not clean")) << refused.err;
    EXPECT_TRUE(contains(refused.err, "with Authorization: Bearer <control token>")) << refused.err;
  }
  // With the token the same journal is read (streamed over HTTP, so taken from the core
  // here), and its duplicate fails.
  EXPECT_EQ(core.handle(provider::HttpRequest{.method = "GET",
                                              .path = "/_test/journal",
                                              .headers = {{"Authorization", "Bearer T"}}},
                        Millis(0))
                .status,
            200);
  const auto read = dir.write("journal.json", core.journal_json().dump());
  const Judged judged = judge({read.string(), "--operation-field", "orderId"});
  EXPECT_EQ(judged.status.code, 1) << judged.out << judged.err;
  EXPECT_TRUE(contains(judged.out, "no-duplicate-effect")) << judged.out;
}

// One proxy per service instance: each journal alone is clean, together they hold two jobs
// for one order.
TEST(JudgeCommand, SeveralJournalsAreJudgedAsOneFleet) {
  TempDir dir("judge-cli");
  const auto first = dir.write("a.json", journal_of({}, {{"ka", kOrder}}, true, 1).dump());
  const auto second = dir.write("b.json", journal_of({}, {{"kb", kOrder}}, true, 2).dump());
  EXPECT_EQ(judge({first.string(), "--operation-field", "orderId"}).status.code, 0);
  EXPECT_EQ(judge({second.string(), "--operation-field", "orderId"}).status.code, 0);

  const auto report = dir.path() / "fleet.json";
  const Judged judged = judge(
      {first.string(), second.string(), "--operation-field", "orderId", "--json", report.string()});
  EXPECT_EQ(judged.status.code, 1) << judged.out << judged.err;
  EXPECT_TRUE(contains(judged.out, "retryproof judge: traffic in " + first.string() + ", " +
                                       second.string() + " as one fleet, operations by orderId"))
      << judged.out;
  EXPECT_TRUE(contains(judged.out, "operation orderId=o-1 has 2 jobs")) << judged.out;
  // What judge knows: no client ran, and there is no seed.
  EXPECT_TRUE(contains(judged.out, "  jobs 2, POSTs 2, judged by attempts 3")) << judged.out;
  EXPECT_FALSE(contains(judged.out, "seed")) << judged.out;
  EXPECT_TRUE(contains(judged.out, "1 operation: 1 succeeded (100.0%), 1 duplicated (100.0%)"))
      << judged.out;
  EXPECT_TRUE(contains(judged.out, "journal 2 seq 1")) << judged.out;
  EXPECT_TRUE(contains(judged.out, "requests per ")) << judged.out;
  EXPECT_TRUE(contains(judged.out, "replay: retryproof judge " + first.string() + " " +
                                       second.string() + " --operation-field orderId"))
      << judged.out;
  const json written = json::parse(read_file(report));
  EXPECT_EQ(written["scenarios"][0]["origins"][1],
            json({{"seq", 2}, {"journal", 2}, {"journalSeq", 1}}));
  EXPECT_EQ(written["scenarios"][0]["operations"]["duplicated"], 1);
}

TEST(JudgeCommand, ABadJournalAmongSeveralIsNamed) {
  TempDir dir("judge-cli");
  const auto good = dir.write("good.json", journal_of({}, {{"k", kOrder}}).dump());
  const auto bad = dir.write("bad.json", R"({"count": 1, "entries": [{"seq": 1}]})");
  const Judged judged = judge({good.string(), bad.string()});
  EXPECT_EQ(judged.status.code, 2) << judged.out;
  EXPECT_TRUE(contains(judged.err, "bad.json: ")) << judged.err;
  EXPECT_FALSE(contains(judged.err, "good.json")) << judged.err;
  const Judged missing = judge({good.string(), (dir.path() / "gone.json").string()});
  EXPECT_EQ(missing.status.code, 2);
  EXPECT_TRUE(contains(missing.err, "gone.json: cannot be read")) << missing.err;
}

TEST(JudgeCommand, ReadsAProxysJournalAsItReadsAProviders) {
  // The provider stands in for a real upstream; the proxy in front of it drops the answer
  // after the upstream committed, and the client re-sends the same key without asking.
  ChildProcess upstream({kBinary, "provider", "--port", "0"});
  const auto upstream_url = upstream.read_line(seconds(10));
  ASSERT_TRUE(upstream_url) << upstream.standard_error();
  ChildProcess proxy({kBinary, "proxy", "--upstream", *upstream_url, "--port", "0"});
  const auto proxy_url = proxy.read_line(seconds(10));
  ASSERT_TRUE(proxy_url) << proxy.standard_error();
  httplib::Client client(*proxy_url);
  ASSERT_TRUE(
      client.Post("/_test/faults", R"({"faults":["commit-then-drop"]})", "application/json"));
  for (int attempt = 0; attempt < 2; ++attempt)
    client.Post("/jobs", {{"Idempotency-Key", "k-1"}}, kOrder.dump(), "application/json");

  TempDir dir("judge-cli");
  const auto journal = client.Get("/_test/journal");
  ASSERT_TRUE(journal);
  ASSERT_TRUE(contains(journal->body, "upstreamStatus")) << "the proxy's own fields, beside";
  const auto saved = dir.write("proxy-journal.json", journal->body);
  const Judged judged = judge({saved.string()});
  EXPECT_EQ(judged.status.code, 1) << judged.out << judged.err;
  EXPECT_TRUE(contains(judged.out, "fail-closed             FAIL")) << judged.out;
  EXPECT_TRUE(contains(judged.out, "no-duplicate-effect     pass"))
      << "the upstream deduplicated the same key\n"
      << judged.out;
}

TEST(VerdictsEndpoint, TheProviderJudgesItsOwnJournalLiveAsJudgeDoesASavedOne) {
  ChildProcess provider({kBinary, "provider", "--port", "0", "--operation-field", "orderId"});
  const auto url = provider.read_line(seconds(10));
  ASSERT_TRUE(url) << provider.standard_error();
  httplib::Client client(*url);
  ASSERT_TRUE(
      client.Post("/_test/faults", R"({"faults":["commit-then-drop"]})", "application/json"));
  for (const char* key : {"attempt-1", "attempt-2"}) {
    client.Post("/jobs", {{"Idempotency-Key", key}}, kOrder.dump(), "application/json");
  }

  const auto live = client.Get("/_test/verdicts?operationField=orderId&policy=attempts%3D2");
  ASSERT_TRUE(live);
  ASSERT_EQ(live->status, 200) << live->body;
  const json report = json::parse(live->body);
  EXPECT_EQ(report["summary"]["notMet"], 1);
  EXPECT_EQ(report["scenarios"][0]["policy"]["attempts"], 2);

  TempDir dir("judge-cli");
  const auto saved = dir.write("journal.json", client.Get("/_test/journal")->body);
  const Judged judged = judge({saved.string(), "--operation-field", "orderId", "--client-policy",
                               "attempts=2", "--json", (dir.path() / "r.json").string()});
  EXPECT_EQ(judged.status.code, 1);
  // The same verdicts; only the advice's word for a declaration is each caller's own.
  std::string live_verdicts = report["scenarios"][0]["verdicts"].dump();
  for (std::size_t at = 0;
       (at = live_verdicts.find("declare it: policy=", at)) != std::string::npos;)
    live_verdicts.replace(at, std::string("declare it: policy=").size(),
                          "declare it: --client-policy ");
  EXPECT_NE(report.dump().find("declare it: policy=min-backoff="), std::string::npos);
  EXPECT_EQ(json::parse(read_file(dir.path() / "r.json"))["scenarios"][0]["verdicts"],
            json::parse(live_verdicts));
  // The saved journal says what its operations are, and judge refuses another field as the
  // live endpoint does, where it once relabelled them silently.
  EXPECT_EQ(json::parse(read_file(saved))["operationField"], "orderId");
  const Judged misnamed = judge({saved.string(), "--operation-field", "orderID"});
  EXPECT_EQ(misnamed.status.code, 2);
  EXPECT_TRUE(contains(misnamed.err, "--operation-field orderID: " + saved.string() +
                                         " records its operations by orderId (its server ran "
                                         "with --operation-field orderId)"))
      << misnamed.err;
  EXPECT_TRUE(contains(judge({saved.string()}).out, "operations by orderId"));

  const auto refused = client.Get("/_test/verdicts?policy=attempts%3Dnone");
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 400);
  EXPECT_EQ(json::parse(refused->body)["error"], "invalid_verdicts_query");
  const auto unknown = client.Get("/_test/verdicts?colour=on");
  ASSERT_TRUE(unknown);
  EXPECT_TRUE(contains(unknown->body,
                       R"(unknown parameter \"colour\"; known: operationField, policy, format)"))
      << unknown->body;
}

TEST(VerdictsEndpoint, ServesEveryReportFormatWithItsMediaType) {
  ChildProcess provider({kBinary, "provider", "--port", "0", "--operation-field", "orderId"});
  const auto url = provider.read_line(seconds(10));
  ASSERT_TRUE(url) << provider.standard_error();
  httplib::Client client(*url);
  ASSERT_TRUE(
      client.Post("/_test/faults", R"({"faults":["commit-then-drop"]})", "application/json"));
  for (const char* key : {"attempt-1", "attempt-2"})
    client.Post("/jobs", {{"Idempotency-Key", key}}, kOrder.dump(), "application/json");

  const std::vector<std::tuple<std::string, std::string, std::string>> formats = {
      {"json", "application/json", R"("withHarm": 1)"},
      {"junit", "application/xml", R"(name="no-duplicate-effect")"},
      {"markdown", "text/markdown; charset=utf-8", "sequenceDiagram"},
      {"text", "text/plain; charset=utf-8", "operation orderId=o-1 has 2 jobs"},
  };
  for (const auto& [format, media_type, part] : formats) {
    const auto answer = client.Get("/_test/verdicts?format=" + format);
    ASSERT_TRUE(answer) << format;
    EXPECT_EQ(answer->status, 200) << format << ": " << answer->body;
    EXPECT_EQ(answer->get_header_value("Content-Type"), media_type) << format;
    EXPECT_TRUE(contains(answer->body, part)) << format << ":\n" << answer->body;
  }
  const auto text = client.Get("/_test/verdicts?format=text");
  EXPECT_TRUE(contains(text->body, "replay: GET /_test/verdicts?format=text")) << text->body;

  const auto refused = client.Get("/_test/verdicts?format=yaml");
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 400);
  EXPECT_TRUE(
      contains(refused->body, "format=yaml: expected one of json, junit, markdown, html, text"))
      << refused->body;
}

}  // namespace
}  // namespace retryproof::scenarios
