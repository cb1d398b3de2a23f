#include "scenarios/reports/report_files.hpp"

#include <stdexcept>

namespace retryproof::scenarios {

ReportFiles::ReportFiles(const std::map<std::string, std::string>& paths) {
  for (const auto& [format, path] : paths) {
    if (path.empty()) continue;
    std::ofstream file(path);
    if (!file) throw std::runtime_error("--" + format + " " + path + ": cannot be written");
    paths_.emplace(format, path);
    files_.emplace(format, std::move(file));
  }
}

void ReportFiles::write(const RunSummary& summary) {
  for (const ReportFormat& format : report_formats()) {
    if (std::ofstream* out = file(format.option)) format.write(*out, summary);
    finish(format.option);
  }
}

void ReportFiles::write(const MatrixReport& matrix) {
  for (const MatrixFormat& format : matrix_formats()) {
    if (std::ofstream* out = file(format.option)) format.write(*out, matrix);
    finish(format.option);
  }
}

void ReportFiles::finish(std::string_view option) {
  std::ofstream* out = file(option);
  if (out != nullptr && !out->flush()) {
    throw std::runtime_error("--" + std::string(option) + " " + paths_.find(option)->second +
                             ": writing failed");
  }
}

std::ofstream* ReportFiles::file(std::string_view option) {
  const auto found = files_.find(option);
  return found == files_.end() ? nullptr : &found->second;
}

}  // namespace retryproof::scenarios
