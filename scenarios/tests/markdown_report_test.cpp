// The Markdown report: a CI job summary with a table and sequence diagrams.
#include <gtest/gtest.h>

#include "scenarios/tests/report_fixture.hpp"

namespace retryproof::scenarios {
namespace {

using namespace report_fixture;

TEST(MarkdownReport, HasTheHeadingAndTheScenarioTable) {
  const std::string text = markdown();
  EXPECT_TRUE(text.starts_with("## retryproof: seed 42, client `reference`\n")) << text;
  EXPECT_TRUE(contains(text, "| scenario | met | jobs | POSTs | outcome | failed verdicts |\n"))
      << text;
  EXPECT_TRUE(contains(text,
                       "| A-fail-before-commit | yes | 1 | 2 | succeeded jobId=job\\_a1 | "
                       "none |\n"))
      << text;
  EXPECT_TRUE(
      contains(text,
               "| C-commit-then-drop | **no** | 2 | 2 | client error: no outcome "
               "line on standard output (exit code 1); killed by SIGKILL | "
               "no-duplicate-effect (harm), key-stability (expected), client-error (harm) |\n"))
      << text;
}

TEST(MarkdownReport, DetailsOnlyTheScenarioThatMissedItsExpectations) {
  const std::string text = markdown();
  EXPECT_FALSE(contains(text, "### A-fail-before-commit")) << text;
  EXPECT_TRUE(contains(text, "### C-commit-then-drop: expectations not met\n")) << text;
  EXPECT_TRUE(contains(text, "- harm: expected 1 job, the provider holds 2\n")) << text;
  EXPECT_TRUE(contains(text,
                       "- **no-duplicate-effect** (harm): operation fulfillment:order-42 made 2 "
                       "jobs: job\\_c1, job\\_c2 (evidence: seq 1, 2)\n"))
      << text;
  EXPECT_TRUE(contains(text, "--filter C-commit-then-drop`")) << text;
  EXPECT_TRUE(contains(text,
                       "<details><summary>standard error of invocation 1, last 20 of 26 "
                       "lines</summary>\n\n```text\nerr-07\n"))
      << text;
  EXPECT_TRUE(contains(text, "err-25\n[2Jscreen wiped\n```\n\n</details>\n")) << text;
  EXPECT_FALSE(contains(text, "err-06")) << text;
}

TEST(MarkdownReport, DrawsTheAttemptsAsAMermaidSequenceDiagram) {
  const std::string text = markdown();
  const auto start = text.find("```mermaid\nsequenceDiagram\n");
  ASSERT_NE(start, std::string::npos) << text;
  const auto end = text.find("```\n", start + 10);
  ASSERT_NE(end, std::string::npos) << text;
  const std::string diagram = text.substr(start, end - start);
  EXPECT_TRUE(contains(diagram, "    participant Client\n    participant Provider\n")) << diagram;
  EXPECT_TRUE(contains(diagram,
                       "    Client->>Provider: POST /jobs key=order#lt;&\\\"#gt;42\n"
                       "    Note over Provider: fault commit-then-drop\n"
                       "    Provider--xClient: dropped (commit-then-drop)\n"))
      << diagram;
  EXPECT_TRUE(contains(diagram, "    Provider-->>Client: 201 job_c2\n")) << diagram;
  EXPECT_EQ(occurrences(diagram, "Client->>Provider"), 2u) << diagram;
  EXPECT_EQ(occurrences(text, "```mermaid"), 1u) << text;
}

TEST(MarkdownReport, EscapesWhatTablesAndMermaidChokeOn) {
  ScenarioResult result = failing_scenario();
  result.name = "pipe | hash # semi; \nnewline";
  result.journal[0].key = "k|1;#x\ny";
  RunSummary run{.seed = 1, .client = "cmd:a | b", .results = {result}};
  std::ostringstream out;
  write_markdown(out, run);
  const std::string text = out.str();
  EXPECT_TRUE(contains(text, "| pipe \\| hash \\# semi;  newline | **no** |")) << text;
  EXPECT_TRUE(contains(text, "Client->>Provider: POST /jobs key=k#124;1#59;#35;x\\x0Ay\n")) << text;
  EXPECT_TRUE(contains(text, "client `cmd:a \\| b`")) << text;
}

}  // namespace
}  // namespace retryproof::scenarios
