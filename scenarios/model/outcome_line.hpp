// The external-client contract's outcome line: what a client says became of its operation,
// as one JSON object on standard output.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace retryproof::scenarios {

enum class Reported { succeeded, failed, unknown };

std::string to_string(Reported outcome);
std::optional<Reported> parse_reported(std::string_view text);

struct OutcomeLine {
  Reported outcome = Reported::unknown;
  std::string job_id;   // when succeeded
  nlohmann::json line;  // the object as printed, for reports
};

// The contract's outcome line from a client's standard output: its last line that is a JSON
// object (lines before it are the client's to print). Or `problem` saying why the output
// holds none (no line, no JSON object, an unknown outcome, a success without a job id).
struct OutcomeReading {
  std::optional<OutcomeLine> line;
  std::string problem;
};
OutcomeReading read_outcome_line(const std::string& standard_output);

// One printed object, already parsed: the same checks.
OutcomeReading outcome_line_of(const nlohmann::json& object);

}  // namespace retryproof::scenarios
