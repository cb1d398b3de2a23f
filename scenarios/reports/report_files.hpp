// The report files a command was asked for (`--json F`, `--junit F`, `--markdown F`): opened
// before anything runs, so that a path that cannot be written is an error at once rather
// than after the whole catalog, and written in one place.
#pragma once

#include <fstream>
#include <map>
#include <string>
#include <string_view>

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

  // The open file of one format, or null when it was not asked for.
  std::ofstream* file(std::string_view option);

 private:
  std::map<std::string, std::string, std::less<>> paths_;
  std::map<std::string, std::ofstream, std::less<>> files_;
};

}  // namespace retryproof::scenarios
