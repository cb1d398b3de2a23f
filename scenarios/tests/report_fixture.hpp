// What the report tests build from: a run summary by hand (one scenario that met its
// expectations, one that did not: a duplicate effect after a dropped response, and a client
// error), the reports written from it, and the checks they share (text search, a small XML
// well-formedness check, JUnit attributes).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "scenarios/reports/reports.hpp"

namespace retryproof::scenarios::report_fixture {

using nlohmann::json;

inline const std::string kAwkwardKey = "order<&\">42";

using provider::Delivery;
using provider::JournalEntry;
using provider::Outcome;

// A create as the provider journals it; no status and a drop when `status` is empty.
inline JournalEntry entry(std::uint64_t seq, std::int64_t at, const std::string& key,
                          Outcome outcome, const std::string& fault, std::optional<int> status,
                          std::optional<std::string> job) {
  return {.seq = seq,
          .at = Millis(at),
          .method = "POST",
          .path = "/jobs",
          .kind = provider::RequestKind::create,
          .key = key,
          .fingerprint = "sha256:ab",
          .outcome = outcome,
          .fault = provider::parse_fault(fault),
          .answered_at = Millis(at),
          .delivery = status ? Delivery::respond : Delivery::drop,
          .status = status,
          .job_id = std::move(job)};
}

inline provider::JobRecord job(const std::string& id, const std::string& key,
                               const std::string& order) {
  return {id, key, {{"id", id}, {"orderId", order}}};
}

inline OutcomeLine outcome_line(const json& line) {
  return *outcome_line_of(line).line;
}

inline ScenarioResult met_scenario() {
  ScenarioResult result;
  result.name = "A-fail-before-commit";
  result.description = "a 503 before commit; the retry creates the job";
  result.file = "catalog/a.json";
  result.client = "reference";
  result.seed = 42;
  result.journal = {entry(1, 0, "k-a", Outcome::new_operation, "fail-before-commit", 503, {}),
                    entry(2, 120, "k-a", Outcome::new_operation, "none", 201, "job_a1")};
  result.jobs = {job("job_a1", "k-a", "order-1")};
  InvocationResult invocation;
  invocation.operation = "fulfillment:order-1";
  invocation.payload = {{"orderId", "order-1"}};
  invocation.first_seq = 1;
  invocation.last_seq = 2;
  invocation.ended_at = Millis(130);
  invocation.outcome = outcome_line({{"outcome", "succeeded"}, {"jobId", "job_a1"}});
  invocation.exit = "exit code 0";
  result.invocations.push_back(invocation);
  result.verdicts = {
      {.id = "no-duplicate-effect", .status = VerdictStatus::pass, .explanation = "one job"},
      {.id = "key-stability", .status = VerdictStatus::pass, .explanation = "one key"},
      {.id = "backoff", .status = VerdictStatus::pass, .explanation = "gaps of 120ms"},
      {.id = "crash-recovery",
       .status = VerdictStatus::not_applicable,
       .explanation = "no crash in this scenario"},
  };
  return result;
}

inline std::string standard_error_lines() {
  std::string text;
  for (int i = 1; i <= 25; ++i) {
    text += "err-" + std::string(i < 10 ? "0" : "") + std::to_string(i) + "\n";
  }
  return text + "\x1b[2Jscreen wiped\n";  // a client's escape sequence must not reach the report
}

inline ScenarioResult failing_scenario() {
  ScenarioResult result;
  result.name = "C-commit-then-drop";
  result.description = "the job is committed, the response dropped";
  result.file = "catalog/c.json";
  result.client = "mutant:blind-retry";
  result.seed = 43;
  result.journal = {
      entry(1, 5, kAwkwardKey, Outcome::new_operation, "commit-then-drop", {}, "job_c1"),
      entry(2, 260, kAwkwardKey + "-2", Outcome::new_operation, "none", 201, "job_c2")};
  result.jobs = {job("job_c1", kAwkwardKey, "order-42"),
                 job("job_c2", kAwkwardKey + "-2", "order-42")};
  InvocationResult first;
  first.operation = "fulfillment:order-42";
  first.payload = {{"orderId", "order-42"}};
  first.first_seq = 1;
  first.last_seq = 2;
  first.started_at = Millis(0);
  first.ended_at = Millis(1500);
  first.client_error = "no outcome line on standard output (exit code 1)";  // as the runner says it
  first.exit = "exit code 1";
  first.standard_error = standard_error_lines();
  InvocationResult second = first;
  second.index = 1;
  second.first_seq = 3;
  second.last_seq = 2;
  second.client_error.clear();
  second.standard_error.clear();
  second.killed = true;
  second.exit = "killed by SIGKILL";
  result.invocations = {first, second};
  result.verdicts = {
      {.id = "no-duplicate-effect",
       .status = VerdictStatus::fail,
       .explanation = "operation fulfillment:order-42 made 2 jobs: job_c1, job_c2",
       .evidence = {1, 2},
       .severity = Severity::harm},
      {.id = "key-stability",
       .status = VerdictStatus::fail,
       .explanation = "operation fulfillment:order-42 used 2 keys",
       .evidence = {1, 2}},
      {.id = "payload-stability", .status = VerdictStatus::pass, .explanation = "no 422"},
      {.id = "crash-recovery",
       .status = VerdictStatus::not_applicable,
       .explanation = "no crash in this scenario"},
      {.id = "client-error",
       .status = VerdictStatus::fail,
       .explanation = "invocation 1: no outcome line on standard output",
       .severity = Severity::harm},
  };
  result.expected_violations = {"key-stability", "payload-stability"};
  result.unmet = {
      {"no-duplicate-effect: operation fulfillment:order-42 made 2 jobs: job_c1, job_c2",
       Severity::harm, "no-duplicate-effect"},
      {"verdict payload-stability passed; the scenario expects it to fail", Severity::harm},
      {"expected 1 job, the provider holds 2", Severity::harm}};
  return result;
}

inline RunSummary summary() {
  return {.seed = 42, .client = "reference", .results = {met_scenario(), failing_scenario()}};
}

inline bool contains(const std::string& text, std::string_view part) {
  return text.find(part) != std::string::npos;
}

inline std::size_t occurrences(const std::string& text, std::string_view part) {
  std::size_t count = 0;
  for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1))
    ++count;
  return count;
}

// Whether one line of `text` holds all `parts`, each starting after the one before.
inline bool has_line(const std::string& text, const std::vector<std::string>& parts) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::size_t at = 0;
    bool all = true;
    for (const auto& part : parts) {
      at = line.find(part, at);
      if (at == std::string::npos) {
        all = false;
        break;
      }
      ++at;  // the next part may share the spaces around this one
    }
    if (all) return true;
  }
  return false;
}

inline std::string terminal(Colour colour) {
  std::ostringstream out;
  write_terminal_report(out, summary(), colour);
  return out.str();
}

// ---------------------------------------------------------------------------------------------
// A small XML 1.0 well-formedness check: balanced elements, quoted attributes, known entities,
// no raw < or & in text, no forbidden control characters, one root.

inline bool valid_reference(std::string_view text, std::size_t& at) {
  const auto end = text.find(';', at);
  if (end == std::string_view::npos) return false;
  const std::string_view name = text.substr(at + 1, end - at - 1);
  at = end + 1;
  if (name == "amp" || name == "lt" || name == "gt" || name == "quot" || name == "apos")
    return true;
  if (name.size() < 2 || name[0] != '#') return false;
  const bool hex = name[1] == 'x';
  const std::string_view digits = name.substr(hex ? 2 : 1);
  if (digits.empty()) return false;
  for (const char c : digits) {
    if (hex ? std::isxdigit(static_cast<unsigned char>(c)) == 0
            : std::isdigit(static_cast<unsigned char>(c)) == 0) {
      return false;
    }
  }
  return true;
}

inline bool is_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '_' || c == ':' ||
         c == '.';
}

// Empty when well-formed, else what is wrong.
inline std::string xml_problem(std::string_view text) {
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 && c != '\t' && c != '\n' && c != '\r') return "a forbidden control character";
  }
  std::size_t at = 0;
  if (text.starts_with("<?xml")) {
    at = text.find("?>");
    if (at == std::string_view::npos) return "an unterminated declaration";
    at += 2;
  }
  std::vector<std::string> open;
  int roots = 0;
  while (at < text.size()) {
    const char c = text[at];
    if (c == '&') {
      if (!valid_reference(text, at)) return "a bad reference in text";
      continue;
    }
    if (c != '<') {
      if (open.empty() && std::isspace(static_cast<unsigned char>(c)) == 0) {
        return "text outside the root";
      }
      ++at;
      continue;
    }
    const bool closing = at + 1 < text.size() && text[at + 1] == '/';
    at += closing ? 2 : 1;
    const std::size_t name_start = at;
    while (at < text.size() && is_name_char(text[at]))
      ++at;
    const std::string name(text.substr(name_start, at - name_start));
    if (name.empty()) return "a tag without a name";
    if (closing) {
      if (open.empty() || open.back() != name) return "</" + name + "> closes nothing open";
      open.pop_back();
      if (at >= text.size() || text[at] != '>') return "a bad closing tag";
      ++at;
      continue;
    }
    // attributes
    while (true) {
      while (at < text.size() && std::isspace(static_cast<unsigned char>(text[at])) != 0)
        ++at;
      if (at >= text.size()) return "an unterminated tag";
      if (text[at] == '>' || text[at] == '/') break;
      const std::size_t attribute_start = at;
      while (at < text.size() && is_name_char(text[at]))
        ++at;
      if (at == attribute_start || at + 1 >= text.size() || text[at] != '=' ||
          text[at + 1] != '"') {
        return "a bad attribute in <" + name + ">";
      }
      at += 2;
      while (at < text.size() && text[at] != '"') {
        if (text[at] == '<') return "a raw < in an attribute";
        if (text[at] == '&') {
          if (!valid_reference(text, at)) return "a bad reference in an attribute";
        } else {
          ++at;
        }
      }
      if (at >= text.size()) return "an unterminated attribute";
      ++at;
    }
    if (open.empty()) ++roots;
    if (text[at] == '/') {
      if (at + 1 >= text.size() || text[at + 1] != '>') return "a bad empty tag";
      at += 2;
    } else {
      open.push_back(name);
      ++at;
    }
  }
  if (!open.empty()) return "<" + open.back() + "> is never closed";
  if (roots != 1) return "not exactly one root";
  return {};
}

// The attribute `name` of the first element whose start tag begins with `tag_start`.
inline std::string attribute(const std::string& xml, const std::string& tag_start,
                             const std::string& name) {
  const auto tag = xml.find(tag_start);
  if (tag == std::string::npos) return "<no such tag>";
  const auto tag_end = xml.find('>', tag);
  const auto at = xml.find(" " + name + "=\"", tag);
  if (at == std::string::npos || at > tag_end) return "<no such attribute>";
  const auto value = at + name.size() + 3;
  return xml.substr(value, xml.find('"', value) - value);
}

// The text of the <testcase> element for one scenario and verdict.
inline std::string test_case(const std::string& xml, const std::string& scenario,
                             const std::string& name) {
  const auto at = xml.find("<testcase classname=\"" + scenario + "\" name=\"" + name + "\"");
  if (at == std::string::npos) return {};
  const auto self_closed = xml.find("/>", at);
  const auto tag_end = xml.find('>', at);
  if (self_closed != std::string::npos && self_closed + 1 == tag_end) {
    return xml.substr(at, tag_end + 1 - at);
  }
  const auto end = xml.find("</testcase>", at);
  return xml.substr(at, end + 11 - at);
}

inline std::string junit() {
  std::ostringstream out;
  write_junit(out, summary());
  return out.str();
}

inline std::string markdown() {
  std::ostringstream out;
  write_markdown(out, summary());
  return out.str();
}

}  // namespace retryproof::scenarios::report_fixture
