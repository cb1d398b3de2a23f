// The proof that the harness has teeth: the reference client against the catalog must
// meet every expectation, and every mutant must be caught by at least one scenario.
#pragma once

#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "scenarios/reports/reports.hpp"

namespace retryproof::scenarios {

struct MatrixRow {
  std::string client;                  // "reference", "mutant:blind-retry"
  std::map<std::string, int> flagged;  // verdict id -> scenarios where it caught the client
  std::vector<std::string> missed;     // scenarios whose expectations the client missed
  int scenarios = 0;
};

MatrixRow matrix_row(std::string client, const std::vector<ScenarioResult>& results);

// The first row is the reference client: clean. Every other row: caught at least once.
bool matrix_holds(const std::vector<MatrixRow>& rows);

void write_mutant_matrix(std::ostream& out, std::uint64_t seed, const std::vector<MatrixRow>& rows,
                         Colour colour);
void write_mutant_matrix_markdown(std::ostream& out, std::uint64_t seed,
                                  const std::vector<MatrixRow>& rows);

}  // namespace retryproof::scenarios
