// The proof that the harness has teeth: the reference client against the catalog must
// meet every expectation, and every mutant must be caught by at least one scenario. Printed
// on the terminal, and written as JSON, JUnit XML or Markdown for CI (run --mutants --json
// FILE ...), each saying the seed, the time scale and the command that replays it.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "common/time_scale.hpp"
#include "scenarios/reports/reports.hpp"

namespace retryproof::scenarios {

struct MatrixRow {
  std::string client;                  // "reference", "mutant:blind-retry"
  std::map<std::string, int> flagged;  // verdict id -> scenarios where it caught the client
  std::vector<std::string> missed;     // scenarios whose expectations the client missed
  int scenarios = 0;
  std::vector<std::string> inconclusive = {};  // scenarios that could not be judged
  // The scenarios that ran below the scale asked for, and the line on why.
  std::vector<std::string> lowered = {};
  std::string scale_summary = {};
};

// The row of one client's results, run at `scale`.
MatrixRow matrix_row(std::string client, const std::vector<ScenarioResult>& results,
                     TimeScale scale = {});

// The first row is the reference client: clean. Every other row: caught at least once.
bool matrix_holds(const std::vector<MatrixRow>& rows);
// 0 when it holds and the reference client was judged whole; 3 when nothing contradicts it
// but it could not be shown (the reference client, or a mutant no scenario caught, had
// scenarios that could not be judged); 1 otherwise.
int matrix_exit_status(const std::vector<MatrixRow>& rows);

struct MatrixReport {
  std::uint64_t seed = 0;
  RunTimeScale time_scale = {};
  std::string replay;  // "retryproof run --mutants --seed 0 --time-scale 10"
  std::vector<MatrixRow> rows;
};

void write_mutant_matrix(std::ostream& out, const MatrixReport& matrix, Colour colour);
void write_mutant_matrix_markdown(std::ostream& out, const MatrixReport& matrix);
// {"version","seed","timeScale":{"asked","used","clockProbe"},"replay","holds",
//  "clients":[{"client","result","scenarios","notMet","flagged","lowered"}]}, where
// result is "clean", "inconclusive" or "flagged" for the reference client, "caught",
// "inconclusive" or "missed" for a mutant.
nlohmann::json to_json(const MatrixReport& matrix);
// One <testsuite> for the matrix, one <testcase> per client, failed when the reference
// client was flagged or a mutant was missed: a CI viewer shows the matrix holding as green.
void write_mutant_matrix_junit(std::ostream& out, const MatrixReport& matrix);

// A matrix report `run --mutants` writes to a file: `--<option> FILE`, as report_formats().
struct MatrixFormat {
  std::string_view option;  // "json", "junit", "markdown"
  void (*write)(std::ostream& out, const MatrixReport& matrix);
};
const std::vector<MatrixFormat>& matrix_formats();

}  // namespace retryproof::scenarios
