#include "scenarios/reports/matrix.hpp"

#include <algorithm>
#include <iomanip>

#include "scenarios/reports/text.hpp"

namespace retryproof::scenarios {
namespace {

bool caught(const MatrixRow& row) {
  return !row.missed.empty();
}

std::string verdict_column(const MatrixRow& row, const std::string& id) {
  const auto found = row.flagged.find(id);
  return found == row.flagged.end() ? "." : std::to_string(found->second);
}

std::string row_status(const MatrixRow& row, bool reference) {
  if (reference) return caught(row) ? "FLAGGED (wrong)" : "clean";
  return caught(row) ? "caught" : "MISSED";
}

}  // namespace

MatrixRow matrix_row(std::string client, const std::vector<ScenarioResult>& results) {
  MatrixRow row{std::move(client), {}, {}, static_cast<int>(results.size())};
  for (const auto& result : results) {
    if (!result.met()) row.missed.push_back(result.name);
    for (const auto& verdict : result.verdicts) {
      const auto& expected = result.expected_violations;
      if (verdict.status == VerdictStatus::fail &&
          std::find(expected.begin(), expected.end(), verdict.id) == expected.end()) {
        ++row.flagged[verdict.id];
      }
    }
  }
  return row;
}

bool matrix_holds(const std::vector<MatrixRow>& rows) {
  if (rows.empty() || caught(rows.front())) return false;
  return std::all_of(rows.begin() + 1, rows.end(), caught);
}

void write_mutant_matrix(std::ostream& out, std::uint64_t seed, const std::vector<MatrixRow>& rows,
                         Colour colour) {
  const bool painted = colour == Colour::on;
  const char* green = painted ? "\x1b[32m" : "";
  const char* red = painted ? "\x1b[31m" : "";
  const char* plain = painted ? "\x1b[0m" : "";
  out << "mutant matrix (seed " << seed
      << "): scenarios in which each verdict caught each client\n\n";
  out << std::left << std::setw(30) << "client";
  const auto& ids = verdict_ids();
  for (std::size_t i = 0; i < ids.size(); ++i)
    out << std::setw(4) << ("v" + std::to_string(i + 1));
  out << "result\n";
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const MatrixRow& row = rows[r];
    out << std::setw(30) << row.client;
    for (const auto& id : ids)
      out << std::setw(4) << verdict_column(row, id);
    const bool good = r == 0 ? !caught(row) : caught(row);
    out << (good ? green : red) << row_status(row, r == 0) << plain;
    if (r > 0 && caught(row))
      out << " (" << row.missed.size() << "/"
          << reports::count_of(static_cast<std::size_t>(row.scenarios), "scenario") << ")";
    if (r == 0 && caught(row)) {
      out << ": ";
      for (const auto& name : row.missed)
        out << name << ' ';
    }
    out << '\n';
  }
  out << '\n';
  for (std::size_t i = 0; i < ids.size(); ++i)
    out << "v" << i + 1 << " = " << ids[i] << '\n';
  out << '\n'
      << (matrix_holds(rows) ? "the harness has teeth: the reference client is clean and every "
                               "mutant was caught\n"
                             : "the matrix does NOT hold: see the rows marked above\n");
}

void write_mutant_matrix_markdown(std::ostream& out, std::uint64_t seed,
                                  const std::vector<MatrixRow>& rows) {
  out << "## retryproof mutant matrix (seed " << seed << ")\n\n| client |";
  for (const auto& id : verdict_ids())
    out << ' ' << id << " |";
  out << " result |\n|---|";
  for (std::size_t i = 0; i <= verdict_ids().size(); ++i)
    out << "---|";
  out << '\n';
  for (std::size_t r = 0; r < rows.size(); ++r) {
    out << "| " << rows[r].client << " |";
    for (const auto& id : verdict_ids())
      out << ' ' << verdict_column(rows[r], id) << " |";
    out << ' ' << row_status(rows[r], r == 0) << " |\n";
  }
}

}  // namespace retryproof::scenarios
