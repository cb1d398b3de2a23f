// A traffic scenario's pictures (traffic_reports.hpp): a sparkline a series with the trigger
// marked in the terminal, Mermaid xycharts in Markdown, every second in JSON, and the time to
// recover as a number in each; the seconds condensed to at most 60 columns.
#include <gtest/gtest.h>

#include "scenarios/reports/traffic_reports.hpp"
#include "scenarios/tests/report_fixture.hpp"

namespace retryproof::scenarios {
namespace {

using namespace report_fixture;

// Six seconds of traffic at 10 operations a second; the trigger from 2 s to 3 s sheds and
// fills the queue, and the fleet is back from 4 s: 1000 ms after the trigger ended.
TrafficPicture six_seconds() {
  TrafficPicture picture{.trigger = Trigger{Millis(2000), Millis(3000)},
                         .length = Millis(6000),
                         .recover_within = Millis(10000),
                         .baseline_known = true,
                         .baseline = 1.0,
                         .recovered_after = Millis(1000)};
  const int succeeded[] = {10, 10, 2, 4, 10, 10};
  const int lookups[] = {0, 0, 8, 6, 0, 0};
  const int shed[] = {0, 0, 5, 0, 0, 0};
  const std::size_t queue[] = {1, 1, 40, 20, 2, 1};
  for (int i = 0; i < 6; ++i) {
    picture.seconds.push_back({.from = Millis(1000 * i),
                               .arrived = 10,
                               .succeeded = succeeded[i],
                               .creates = 10 + shed[i],
                               .lookups = lookups[i],
                               .shed = shed[i],
                               .deepest_queue = queue[i]});
  }
  return picture;
}

RunSummary with_traffic(std::optional<TrafficPicture> picture) {
  ScenarioResult result = met_scenario();
  result.name = "traffic-drop";
  result.concurrency = 10;
  result.traffic = std::move(picture);
  return {.seed = 42, .client = "reference", .results = {std::move(result)}};
}

std::string traffic_terminal_of(const RunSummary& run) {
  std::ostringstream out;
  write_terminal_report(out, run, Colour::off);
  return out.str();
}
std::string traffic_markdown_of(const RunSummary& run) {
  std::ostringstream out;
  write_markdown(out, run);
  return out.str();
}

TEST(TrafficReport, TheTerminalDrawsASparklineASeriesWithTheTriggerAndTheTimeToRecover) {
  const std::string text = traffic_terminal_of(with_traffic(six_seconds()));
  EXPECT_TRUE(contains(text,
                       "\n  traffic per 1 s from +0ms, the trigger +2000ms to +3000ms marked ─:\n"
                       "    offered │██████│ peak 10\n"
                       "    goodput │██▂▄██│ peak 10\n"
                       "    creates │▆▆█▆▆▆│ peak 15\n"
                       "    lookups │  █▆  │ peak 8\n"
                       "    shed    │  █   │ peak 5\n"
                       "    queue   │▁▁█▄▁▁│ deepest 40\n"
                       "               ─\n"
                       "  time to recover: 1000 ms after the trigger ended at +3000ms (success "
                       "100% before the trigger, back to 90% of it; recovery's bound is 10000 "
                       "ms)\n"))
      << text;
}

TEST(TrafficReport, AFleetThatNeverCameBackSaysSoAndOneWithoutTrafficDrawsNothing) {
  TrafficPicture stuck = six_seconds();
  stuck.recovered_after.reset();
  EXPECT_EQ(reports::recovery_text(stuck),
            "time to recover: did not recover while traffic lasted (the trigger ended at "
            "+3000ms; success 100% before the trigger; recovery's bound is 10000 ms)");
  stuck.baseline_known = false;
  EXPECT_EQ(reports::recovery_text(stuck).rfind("time to recover: could not tell (", 0), 0u);
  stuck.trigger.reset();
  EXPECT_EQ(reports::recovery_text(stuck), "");
  const std::string text = traffic_terminal_of(with_traffic(std::nullopt));
  EXPECT_FALSE(contains(text, "traffic per")) << text;
  EXPECT_FALSE(contains(traffic_markdown_of(with_traffic(std::nullopt)), "traffic over time"));
  EXPECT_FALSE(to_json(with_traffic(std::nullopt)).at("scenarios").at(0).contains("traffic"));
}

TEST(TrafficReport, MarkdownDrawsRatesAndTheQueueAsXyChartsWithTheTriggerMarked) {
  const std::string text = traffic_markdown_of(with_traffic(six_seconds()));
  EXPECT_TRUE(contains(text,
                       "\n### traffic-drop: traffic over time\n\n"
                       "```mermaid\nxychart-beta\n"
                       "    title \"Operations and requests per 1 s (* in the trigger)\"\n"
                       "    x-axis \"s\" [\"0\", \"1\", \"2*\", \"3\", \"4\", \"5\"]\n"
                       "    y-axis \"per 1 s\" 0 --> 15\n"
                       "    bar [10, 10, 10, 10, 10, 10]\n"
                       "    line [10, 10, 2, 4, 10, 10]\n"
                       "    line [10, 10, 15, 10, 10, 10]\n"
                       "    line [0, 0, 8, 6, 0, 0]\n"
                       "    line [0, 0, 5, 0, 0, 0]\n"
                       "```\n"))
      << text;
  EXPECT_TRUE(contains(text, "lines, in order: goodput, creates, lookups, shed")) << text;
  EXPECT_TRUE(contains(text, "    y-axis \"requests\" 0 --> 40\n    bar [1, 1, 40, 20, 2, 1]\n"))
      << text;
  EXPECT_TRUE(contains(text, "Time to recover: 1000 ms after the trigger ended at +3000ms"))
      << text;
}

TEST(TrafficReport, JsonHasEverySecondAndTheTimeToRecover) {
  const auto traffic = to_json(with_traffic(six_seconds())).at("scenarios").at(0).at("traffic");
  EXPECT_EQ(traffic.at("recoveredAfterMs"), 1000);
  EXPECT_EQ(traffic.at("recovery"), "recovered");
  EXPECT_EQ(traffic.at("trigger"), (json{{"fromMs", 2000}, {"untilMs", 3000}}));
  EXPECT_EQ(traffic.at("baseline"), 1.0);
  ASSERT_EQ(traffic.at("seconds").size(), 6u);
  EXPECT_EQ(traffic.at("seconds").at(2), (json{{"startMs", 2000},
                                               {"offered", 10},
                                               {"succeeded", 2},
                                               {"creates", 15},
                                               {"lookups", 8},
                                               {"shed", 5},
                                               {"queueDepth", 40},
                                               {"inTrigger", true}}));
  EXPECT_EQ(traffic.at("seconds").at(3).at("inTrigger"), false);
  TrafficPicture stuck = six_seconds();
  stuck.recovered_after.reset();
  const auto failed = to_json(with_traffic(stuck)).at("scenarios").at(0).at("traffic");
  EXPECT_EQ(failed.at("recoveredAfterMs"), nullptr);
  EXPECT_EQ(failed.at("recovery"), "not recovered");
}

TEST(TrafficReport, JunitCarriesTheTimeToRecoverAsAProperty) {
  std::ostringstream out;
  write_junit(out, with_traffic(six_seconds()));
  EXPECT_EQ(xml_problem(out.str()), "");
  EXPECT_TRUE(contains(out.str(),
                       "<property name=\"recovery: traffic-drop\" value=\"time to recover: 1000 "
                       "ms after the trigger ended at +3000ms (success 100% before the trigger, "
                       "back to 90% of it; recovery&apos;s bound is 10000 ms)\"/>"))
      << out.str();
}

TEST(TrafficReport, LongTrafficIsCondensedToSixtyColumnsOfWholeSeconds) {
  TrafficPicture picture = six_seconds();
  picture.seconds.clear();
  for (int i = 0; i < 130; ++i)
    picture.seconds.push_back(
        {.from = Millis(1000 * i), .arrived = 1, .deepest_queue = static_cast<std::size_t>(i)});
  picture.trigger = Trigger{Millis(61000), Millis(62000)};
  const reports::TrafficColumns columns = reports::traffic_columns(picture);
  EXPECT_EQ(columns.seconds_each, 3);
  ASSERT_EQ(columns.columns.size(), 44u);  // 43 of three seconds, and one of the last
  EXPECT_EQ(columns.columns[0].arrived, 3);
  EXPECT_EQ(columns.columns[0].deepest_queue, 2u);  // the deepest, not the sum
  EXPECT_EQ(columns.columns.back().arrived, 1);
  EXPECT_TRUE(columns.columns[20].in_trigger);  // 60 s to 63 s
  EXPECT_FALSE(columns.columns[19].in_trigger);
  EXPECT_FALSE(columns.columns[21].in_trigger);
  EXPECT_TRUE(contains(traffic_terminal_of(with_traffic(picture)), "traffic per 3 s from +0ms"));
}

}  // namespace
}  // namespace retryproof::scenarios
