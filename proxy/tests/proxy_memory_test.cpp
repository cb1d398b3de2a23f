// The proxy's memory bounds, on the core, as the provider's (provider/tests/memory_limits_test
// .cpp): --max-keys bounds the jobs it knows, their ids and the chaos attempt counts, and
// refuses the new operation past it; --journal-limit bounds the journal, its older entries
// spilled to --journal-file with the upstream's fields, or dropped and counted. And the seed
// that makes a brownout replay.
#include <gtest/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/temp_dir.hpp"
#include "provider/journal.hpp"
#include "proxy/proxy_core.hpp"
#include "proxy/tests/proxy_core_support.hpp"

namespace retryproof::proxy {
namespace {

using nlohmann::json;
using provider::Decision;
using provider::HttpRequest;
using testing::post_request;
using testing::upstream_created;

using namespace std::chrono_literals;

HttpRequest lookup_request(const std::string& key) {
  return {.method = "GET", .path = "/jobs/by-idempotency-key/" + key};
}

Decision send_control(ProxyCore& core, const std::string& path, const json& body) {
  const Disposition step =
      core.begin({.method = "POST", .path = path, .body = body.dump()}, Millis(0));
  return std::get<Decision>(step);
}

// Sends `request` at `now`; when the core forwards it, the upstream answers `answer`.
Decision through(ProxyCore& core, const HttpRequest& request, const UpstreamAnswer& answer,
                 Millis now = Millis(0)) {
  Disposition step = core.begin(request, now);
  if (auto* decided = std::get_if<Decision>(&step)) return *decided;
  return core.finish(std::get<Forward>(step).ticket, answer, now);
}

// Past --max-keys a new operation is refused by the proxy (the upstream is not asked), as at
// the provider; a key it already knows, and lookups, go through as before.
TEST(ProxyMemory, TheNewKeyPastMaxKeysIs507AndTheUpstreamIsNotAsked) {
  ProxyCore core({.max_keys = 2});
  EXPECT_EQ(through(core, post_request("a"), upstream_created("job_0000000a")).status, 201);
  EXPECT_EQ(through(core, post_request("b"), upstream_created("job_0000000b")).status, 201);
  const Disposition refused = core.begin(post_request("c"), Millis(0));
  ASSERT_TRUE(std::holds_alternative<Decision>(refused)) << "forwarded past the bound";
  const Decision answer = std::get<Decision>(refused);
  EXPECT_EQ(answer.status, 507);
  EXPECT_EQ(json::parse(answer.body)["error"], "capacity_exhausted");
  EXPECT_EQ(json::parse(answer.body)["detail"],
            "the proxy holds 2 keys, its --max-keys; replays and lookups still work");
  EXPECT_EQ(core.journal_json()["entries"][2]["outcome"], "capacity_exhausted");
  EXPECT_TRUE(std::holds_alternative<Forward>(core.begin(post_request("a"), Millis(0))));
  EXPECT_TRUE(std::holds_alternative<Forward>(core.begin(lookup_request("c"), Millis(0))));
}

// A create at the upstream may commit: it holds its place, as a held request does at the
// provider, so a burst of new keys cannot overshoot the bound.
TEST(ProxyMemory, ACreateAtTheUpstreamHoldsItsPlace) {
  ProxyCore core({.max_keys = 1});
  const Disposition first = core.begin(post_request("a"), Millis(0));
  ASSERT_TRUE(std::holds_alternative<Forward>(first));
  EXPECT_EQ(std::get<Decision>(core.begin(post_request("b"), Millis(0))).status, 507);
  core.finish(std::get<Forward>(first).ticket, {.status = 500, .body = "{}"}, Millis(1));
  EXPECT_TRUE(std::holds_alternative<Forward>(core.begin(post_request("b"), Millis(2))))
      << "a create the upstream failed committed nothing: its place is free again";
}

// With --key-ttl, the jobs of expired keys are freed for room, oldest first, and their ids
// with them: however many keys pass through, the proxy holds max-keys jobs, ids and counts.
TEST(ProxyMemory, JobsTheirIdsAndAttemptCountsStopGrowingAtMaxKeys) {
  ProxyCore core({.enforce_keys = true, .key_ttl = 1h, .max_keys = 10});
  ASSERT_EQ(send_control(core, "/_test/faults",
                         json::parse(R"({"chaos":{"seed":1,"rates":{"none":1.0}}})"))
                .status,
            200);
  Millis now{0};
  for (int i = 0; i < 600; ++i) {
    if (i % 10 == 0) now += 1h + Millis{1};  // the previous ten keys expire
    const std::string n = std::to_string(i);
    char id[16];
    std::snprintf(id, sizeof id, "job_%08x", i);
    ASSERT_EQ(through(core, post_request("k" + n), upstream_created(id), now).status, 201) << i;
    through(core, lookup_request("k" + n), {.status = 200, .body = json{{"id", id}}.dump()}, now);
  }
  const ProxyCore::Retention held = core.retention();
  EXPECT_EQ(held.held_jobs, 10U);
  EXPECT_EQ(held.freed_jobs, 590U);
  EXPECT_EQ(held.known_job_ids, 10U);
  EXPECT_EQ(held.counted_creates, 10U) << "the chaos plan counts every key's creates";
  EXPECT_EQ(core.jobs_json()["count"], 10);
}

// Under chaos, a key that never reaches a job (every create failed before the commit, every
// lookup missed) kept its attempt count for the life of the proxy: with --max-keys the
// counts of that many keys are kept, the oldest forgotten.
TEST(ProxyMemory, ChaosAttemptCountsAreBoundedByMaxKeys) {
  ProxyCore core({.max_keys = 50});
  ASSERT_EQ(send_control(core, "/_test/faults",
                         json::parse(R"({"chaos":{"seed":1,"rates":{"fail-before-commit":1.0,)"
                                     R"("lookup-unavailable":1.0}}})"))
                .status,
            200);
  for (int i = 0; i < 1000; ++i) {
    const std::string key = "k" + std::to_string(i);
    ASSERT_EQ(std::get<Decision>(core.begin(post_request(key), Millis(0))).status, 503);
    ASSERT_EQ(std::get<Decision>(core.begin(lookup_request(key), Millis(0))).status, 503);
  }
  EXPECT_EQ(core.retention().counted_creates, 50U);
  EXPECT_EQ(core.retention().counted_lookups, 50U);
  EXPECT_EQ(core.retention().held_jobs, 0U);
}

// Past --journal-limit without a file, the oldest entries are dropped and counted, as at the
// provider; those kept still carry what the upstream did.
TEST(ProxyMemory, PastTheJournalLimitTheOldestEntriesAreDroppedAndCounted) {
  ProxyCore core({.journal = {.in_memory = 4}});
  for (int i = 0; i < 10; ++i)
    through(core, post_request("k" + std::to_string(i)),
            upstream_created("job_000000" + std::to_string(10 + i)));
  EXPECT_LE(core.retention().journal_in_memory, 4U);
  const json journal = core.journal_json();
  EXPECT_EQ(journal["dropped"], 6);
  EXPECT_EQ(journal["count"], 4);
  EXPECT_EQ(journal["entries"][0]["seq"], 7);
  EXPECT_EQ(journal["entries"][0]["upstreamStatus"], 201);
  EXPECT_EQ(journal["entries"][0]["upstreamError"], nullptr);
}

// With --journal-file nothing is lost: the spilled entries read back from the file with the
// upstream's fields, and a request still at the upstream keeps its entry in memory until the
// upstream has answered.
TEST(ProxyMemory, SpilledEntriesReadBackWithTheUpstreamsFields) {
  const TempDir dir;
  ProxyCore core({.journal = {.in_memory = 4, .spill_file = (dir.path() / "j.jsonl").string()}});
  const Disposition held = core.begin(post_request("slow"), Millis(0));
  for (int i = 0; i < 9; ++i)
    through(core, post_request("k" + std::to_string(i)),
            upstream_created("job_000000" + std::to_string(10 + i)));
  core.finish(std::get<Forward>(held).ticket, {.failure = UpstreamFailure::timeout}, Millis(3));
  for (int i = 0; i < 4; ++i)  // the first is answered now: the journal moves past it
    through(core, lookup_request("k" + std::to_string(i)), {.status = 404, .body = "{}"});
  EXPECT_LE(core.retention().journal_in_memory, 4U);
  EXPECT_GT(core.retention().spilled_entries, 0U);
  const json journal = core.journal_json();
  ASSERT_EQ(journal["count"], 14);
  EXPECT_FALSE(journal.contains("dropped"));
  EXPECT_EQ(journal["entries"][0]["key"], "slow");
  EXPECT_EQ(journal["entries"][0]["upstreamError"], "timeout");
  EXPECT_EQ(journal["entries"][0]["status"], 504);
  for (std::size_t i = 1; i < 10; ++i) {
    EXPECT_EQ(journal["entries"][i]["seq"], i + 1);
    EXPECT_EQ(journal["entries"][i]["upstreamStatus"], 201) << i;
    EXPECT_EQ(journal["entries"][i]["outcome"], "new") << i;
  }
  EXPECT_EQ(journal["entries"][13]["upstreamStatus"], 404);
  EXPECT_EQ(provider::journal_from_json(journal), core.journal());
}

// Which requests a brownout fails, in order: "F" failed, "." forwarded.
std::string brownout(ProxyCore& core) {
  const json plan = json::parse(
      R"({"outages":[{"from":"0ms","for":"1h","fault":"fail-before-commit","rate":0.5}]})");
  EXPECT_EQ(send_control(core, "/_test/faults", plan).status, 200);
  std::string seen;
  for (int i = 0; i < 64; ++i) {
    const Disposition step = core.begin(post_request("k" + std::to_string(i % 16)), Millis(i));
    seen += std::holds_alternative<Decision>(step) ? 'F' : '.';
    if (auto* forward = std::get_if<Forward>(&step))
      core.finish(forward->ticket, {.status = 500, .body = "{}"}, Millis(i));
  }
  return seen;
}

// A brownout's draw is the proxy's seed's (--seed, or a reset's), so a rehearsal replays
// request for request; another seed draws other requests.
TEST(ProxyMemory, TheSameSeedFailsTheSameRequestsOfABrownout) {
  ProxyCore first({.seed = 7});
  ProxyCore again({.seed = 7});
  ProxyCore other({.seed = 8});
  const std::string drawn = brownout(first);
  EXPECT_NE(drawn.find('F'), std::string::npos);
  EXPECT_NE(drawn.find('.'), std::string::npos);
  EXPECT_EQ(brownout(again), drawn);
  EXPECT_NE(brownout(other), drawn);
  const Decision reset = send_control(other, "/_test/reset", {{"seed", 7}});
  EXPECT_EQ(json::parse(reset.body)["seed"], 7);
  EXPECT_EQ(brownout(other), drawn) << "a reset to the seed replays it";
}

}  // namespace
}  // namespace retryproof::proxy
