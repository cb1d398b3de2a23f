// The report files a command was asked for (`--json F`, `--junit F`, `--markdown F`): opened
// before anything runs, so that a path that cannot be written is an error at once rather
// than after the whole catalog, and written in one place.
#pragma once

#include <fstream>
#include <map>
#include <string>
#include <string_view>

#include "scenarios/reports/matrix.hpp"
#include "scenarios/reports/reports.hpp"

namespace retryproof::scenarios {

class ReportFiles {
 public:
  // `paths`: a format's option ("json") to its file; an empty path asks for nothing. Throws
  // std::runtime_error "--json PATH: cannot be written".
  explicit ReportFiles(const std::map<std::string, std::string>& paths);

  // Writes the summary to every file asked for, in its format. Throws std::runtime_error
  // naming the option and file when writing fails.
  void write(const RunSummary& summary);
  // The same for the mutant matrix (run --mutants).
  void write(const MatrixReport& matrix);

  // The open file of one format, or null when it was not asked for.
  std::ofstream* file(std::string_view option);

 private:
  // Flushes the format's file, if it was asked for. Throws std::runtime_error naming the
  // option and file when writing failed.
  void finish(std::string_view option);

  std::map<std::string, std::string, std::less<>> paths_;
  std::map<std::string, std::ofstream, std::less<>> files_;
};

}  // namespace retryproof::scenarios
