#include "scenarios/reports/matrix.hpp"

#include <algorithm>
#include <iomanip>

#include "common/utf8.hpp"
#include "scenarios/driver/scale_guard.hpp"
#include "scenarios/reports/text.hpp"
#include "scenarios/reports/view.hpp"

namespace retryproof::scenarios {
namespace {

using nlohmann::json;
using namespace reports;

bool caught(const MatrixRow& row) {
  return !row.missed.empty();
}

// A row that failed nothing it should have, but could not be judged whole: the reference
// client with scenarios inconclusive, or a mutant that nothing caught but something could
// not tell about.
bool undecided(const MatrixRow& row, std::size_t index) {
  return !caught(row) && !row.inconclusive.empty() && (index == 0 || row.missed.empty());
}

// Whether the row is what the matrix needs: the reference (row 0) clean and judged whole, a
// mutant caught.
bool as_required(const MatrixRow& row, std::size_t index) {
  return index == 0 ? !caught(row) && row.inconclusive.empty() : caught(row);
}

std::string verdict_column(const MatrixRow& row, const std::string& id) {
  const auto found = row.flagged.find(id);
  return found == row.flagged.end() ? "." : std::to_string(found->second);
}

std::string row_status(const MatrixRow& row, bool reference) {
  if (undecided(row, reference ? 0 : 1)) return "INCONCLUSIVE";
  if (reference) return caught(row) ? "FLAGGED (wrong)" : "clean";
  return caught(row) ? "caught" : "MISSED";
}

// The row's result as a word for machines: "clean", "flagged", "caught", "missed",
// "inconclusive".
std::string row_result(const MatrixRow& row, bool reference) {
  if (undecided(row, reference ? 0 : 1)) return "inconclusive";
  if (reference) return caught(row) ? "flagged" : "clean";
  return caught(row) ? "caught" : "missed";
}

std::string heading(const MatrixReport& matrix) {
  return "mutant matrix (seed " + std::to_string(matrix.seed) +
         time_scale_subject(matrix.time_scale) + ")";
}

// What a reader must know about the time scale: the clock probe's finding, and per client
// the scenarios that ran at a lower scale.
std::vector<std::string> time_scale_notes(const MatrixReport& matrix) {
  std::vector<std::string> notes;
  if (!matrix.time_scale.probe.empty()) notes.push_back(matrix.time_scale.probe);
  if (!matrix.time_scale.overhead.empty()) notes.push_back(matrix.time_scale.overhead);
  for (const auto& row : matrix.rows) {
    if (!row.scale_summary.empty()) notes.push_back(row.client + ": " + row.scale_summary);
  }
  return notes;
}

}  // namespace

MatrixRow matrix_row(std::string client, const std::vector<ScenarioResult>& results,
                     TimeScale scale) {
  MatrixRow row{std::move(client), {}, {}, static_cast<int>(results.size())};
  for (const auto& result : results) {
    if (result.status() == ScenarioStatus::failed) row.missed.push_back(result.name);
    if (result.status() == ScenarioStatus::inconclusive) row.inconclusive.push_back(result.name);
    if (!result.scale_why.empty()) row.lowered.push_back(result.name);
    for (const auto& verdict : result.verdicts) {
      const auto& expected = result.expected_violations;
      if (verdict.status == VerdictStatus::fail &&
          std::find(expected.begin(), expected.end(), verdict.id) == expected.end()) {
        ++row.flagged[verdict.id];
      }
    }
  }
  row.scale_summary = scale_summary(results, scale);
  return row;
}

bool matrix_holds(const std::vector<MatrixRow>& rows) {
  if (rows.empty() || caught(rows.front())) return false;
  return std::all_of(rows.begin() + 1, rows.end(), caught);
}

int matrix_exit_status(const std::vector<MatrixRow>& rows) {
  bool could_not_tell = false;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    if (as_required(rows[r], r)) continue;
    if (!undecided(rows[r], r)) return kExitFailed;
    could_not_tell = true;
  }
  if (rows.empty()) return kExitFailed;
  return could_not_tell ? kExitInconclusive : kExitMet;
}

void write_mutant_matrix(std::ostream& out, const MatrixReport& matrix, Colour colour) {
  const bool painted = colour == Colour::on;
  const char* green = painted ? "\x1b[32m" : "";
  const char* red = painted ? "\x1b[31m" : "";
  const char* plain = painted ? "\x1b[0m" : "";
  for (const auto& note : time_scale_notes(matrix))
    out << terminal_text(note) << '\n';
  out << heading(matrix) << ": scenarios in which each verdict caught each client\n\n";
  out << std::left << std::setw(30) << "client";
  const auto& ids = verdict_ids();
  for (std::size_t i = 0; i < ids.size(); ++i)
    out << std::setw(4) << ("v" + std::to_string(i + 1));
  out << "result\n";
  for (std::size_t r = 0; r < matrix.rows.size(); ++r) {
    const MatrixRow& row = matrix.rows[r];
    out << std::setw(30) << row.client;
    for (const auto& id : ids)
      out << std::setw(4) << verdict_column(row, id);
    out << (as_required(row, r) ? green : red) << row_status(row, r == 0) << plain;
    if (r > 0 && caught(row))
      out << " (" << row.missed.size() << "/"
          << count_of(static_cast<std::size_t>(row.scenarios), "scenario") << ")";
    if (r == 0 && caught(row)) out << ": " << join(row.missed, " ");
    if (undecided(row, r)) out << ": could not judge " << join(row.inconclusive, " ");
    out << '\n';
  }
  out << '\n';
  for (std::size_t i = 0; i < ids.size(); ++i)
    out << "v" << i + 1 << " = " << ids[i] << '\n';
  out << '\n'
      << (matrix_exit_status(matrix.rows) == kExitMet
              ? "the harness has teeth: the reference client is clean and every mutant was caught\n"
          : matrix_exit_status(matrix.rows) == kExitInconclusive
              ? "the matrix could not be shown whole (inconclusive): see the rows marked above\n"
              : "the matrix does NOT hold: see the rows marked above\n");
  if (!matrix.replay.empty()) out << "replay: " << terminal_text(matrix.replay) << '\n';
}

void write_mutant_matrix_markdown(std::ostream& out, const MatrixReport& matrix) {
  out << "## retryproof " << markdown_text(heading(matrix)) << "\n\n";
  for (const auto& note : time_scale_notes(matrix))
    out << "> " << markdown_text(note) << "\n\n";
  out << "| client |";
  for (const auto& id : verdict_ids())
    out << ' ' << id << " |";
  out << " result |\n|---|";
  for (std::size_t i = 0; i <= verdict_ids().size(); ++i)
    out << "---|";
  out << '\n';
  for (std::size_t r = 0; r < matrix.rows.size(); ++r) {
    out << "| " << markdown_text(matrix.rows[r].client) << " |";
    for (const auto& id : verdict_ids())
      out << ' ' << verdict_column(matrix.rows[r], id) << " |";
    out << ' ' << row_status(matrix.rows[r], r == 0) << " |\n";
  }
  if (!matrix.replay.empty()) out << "\nReplay: " << code_span(matrix.replay) << '\n';
}

json to_json(const MatrixReport& matrix) {
  json clients = json::array();
  for (std::size_t r = 0; r < matrix.rows.size(); ++r) {
    const MatrixRow& row = matrix.rows[r];
    clients.push_back({{"client", valid_utf8(row.client)},
                       {"result", row_result(row, r == 0)},
                       {"scenarios", row.scenarios},
                       {"notMet", strings_json(row.missed)},
                       {"inconclusive", strings_json(row.inconclusive)},
                       {"flagged", row.flagged},
                       {"lowered", strings_json(row.lowered)}});
  }
  return {{"version", RETRYPROOF_VERSION},
          {"seed", matrix.seed},
          {"timeScale", time_scale_json(matrix.time_scale)},
          {"replay", valid_utf8(matrix.replay)},
          {"holds", matrix_holds(matrix.rows)},
          {"exitStatus", matrix_exit_status(matrix.rows)},
          {"clients", std::move(clients)}};
}

void write_mutant_matrix_junit(std::ostream& out, const MatrixReport& matrix) {
  std::size_t failures = 0;
  std::size_t errors = 0;
  for (std::size_t r = 0; r < matrix.rows.size(); ++r) {
    if (as_required(matrix.rows[r], r)) continue;
    (undecided(matrix.rows[r], r) ? errors : failures) += 1;
  }
  const std::string counts = "tests=\"" + std::to_string(matrix.rows.size()) + "\" failures=\"" +
                             std::to_string(failures) + "\" errors=\"" + std::to_string(errors) +
                             "\"";
  const auto attribute = [](std::string_view text) {
    return xml_escape(text, XmlPlace::attribute);
  };
  const auto property = [&](std::string_view name, const std::string& value) {
    out << "      <property name=\"" << name << "\" value=\"" << attribute(value) << "\"/>\n";
  };
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out << "<testsuites name=\"retryproof\" " << counts << ">\n";
  out << "  <testsuite name=\"retryproof: mutant matrix\" " << counts << ">\n";
  out << "    <properties>\n";
  property("seed", std::to_string(matrix.seed));
  if (!matrix.replay.empty()) property("replay", matrix.replay);
  if (matrix.time_scale.scaled()) {
    property("time-scale", std::to_string(matrix.time_scale.asked));
    property("time-scale-used", std::to_string(matrix.time_scale.used));
  }
  for (const auto& note : time_scale_notes(matrix))
    property("time-scale-note", note);
  out << "    </properties>\n";
  for (std::size_t r = 0; r < matrix.rows.size(); ++r) {
    const MatrixRow& row = matrix.rows[r];
    out << "    <testcase classname=\"mutant-matrix\" name=\"" << attribute(row.client) << "\"";
    if (as_required(row, r)) {
      out << "/>\n";
      continue;
    }
    if (undecided(row, r)) {
      out << ">\n      <error type=\"inconclusive\" message=\""
          << attribute("inconclusive: could not judge " + join(row.inconclusive, ", "))
          << "\"/>\n    </testcase>\n";
      continue;
    }
    const std::string message =
        r == 0 ? "the reference client missed the expectations of: " + join(row.missed, ", ")
               : "no scenario caught this mutant: every one of its " +
                     count_of(static_cast<std::size_t>(row.scenarios), "scenario") +
                     " met its expectations";
    out << ">\n      <failure message=\"" << attribute(message) << "\"/>\n    </testcase>\n";
  }
  out << "  </testsuite>\n";
  out << "</testsuites>\n";
}

const std::vector<MatrixFormat>& matrix_formats() {
  static const std::vector<MatrixFormat> formats = {
      {"json", [](std::ostream& out,
                  const MatrixReport& matrix) { out << to_json(matrix).dump(2) << '\n'; }},
      {"junit", write_mutant_matrix_junit},
      {"markdown", write_mutant_matrix_markdown},
  };
  return formats;
}

}  // namespace retryproof::scenarios
