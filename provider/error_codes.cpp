#include "provider/error_codes.hpp"

#include <algorithm>
#include <array>
#include <string>
#include <utility>

namespace retryproof::provider {

const std::vector<ErrorCodeRow>& error_code_table() {
  using enum Meaning;
  // The first 15 pack into a journal record: the answers a long run repeats come first.
  static const std::vector<ErrorCodeRow> table = {
      {"rate_limited", 429, rate_limited, "Too many requests", true},
      {"temporarily_unavailable", 503, unavailable, "Temporarily unavailable", true},
      {"internal_error", 500, hidden, "Internal error", true},
      {"idempotency_key_in_flight", 409, in_flight,
       "A request with this Idempotency-Key is still being processed", true},
      {"idempotency_key_reused_with_different_payload", 422, definitive,
       "Idempotency-Key was already used with a different payload", true},
      {"idempotency_key_required", 400, definitive, "Idempotency-Key is missing", true},
      {"idempotency_key_invalid", 400, definitive, "Idempotency-Key is malformed", true},
      {"invalid_json", 400, definitive, "The body is not a JSON object", true},
      {"invalid_form_body", 400, definitive, "The body is not a form", true},
      {"bad_request", 400, definitive, "Bad request", true},
      {"not_found", 404, not_found, "Not found", true},
      // At --max-keys (507), or at the connection cap (503): either way, room comes back.
      {"capacity_exhausted", 507, unavailable, "The provider holds as many keys as it may", true},
      {"payload_too_large", 413, other, "The body is too large", true},
      {"upstream_unreachable", 502, server_error, "The upstream is unreachable", false},
      {"upstream_timeout", 504, server_error, "The upstream did not answer in time", false},
      // Kept whole in the journal from here on.
      // A provider past its capacity (provider/capacity.hpp) sheds what it cannot queue.
      {"overloaded", 503, unavailable, "The provider is past its capacity", true},
      {"method_not_allowed", 405, other, "Method not allowed", false},
      {"request_timeout", 408, other, "The request was not received in time", false},
      {"request_header_fields_too_large", 431, other, "The request head is too large", false},
      {"upstream_closed", 502, server_error, "The upstream closed the connection", false},
      {"upstream_bad_response", 502, server_error, "The upstream's answer is not HTTP", false},
      {"upstream_tls_error", 502, server_error, "The upstream's TLS failed", false},
      {"proxy_stopping", 503, unavailable, "The proxy is stopping", false},
      // The control plane's: never journaled.
      {"unauthorized", 401, other, "Unauthorized", false},
      {"invalid_fault_plan", 400, other, "The fault plan is invalid", false},
      {"invalid_reset", 400, other, "The reset request is invalid", false},
      {"invalid_clock", 400, other, "The clock request is invalid", false},
      {"invalid_journal_query", 400, other, "The journal query is invalid", false},
  };
  return table;
}

const ErrorCodeRow* error_code_row(std::string_view code) {
  const auto& table = error_code_table();
  const auto row = std::find_if(table.begin(), table.end(), [&](const ErrorCodeRow& candidate) {
    return candidate.code == code;
  });
  return row == table.end() ? nullptr : &*row;
}

std::string_view restatable_codes_text() {
  static const std::string text = [] {
    std::string names;
    for (const ErrorCodeRow& row : error_code_table()) {
      if (row.restatable) names += (names.empty() ? "" : ", ") + std::string(row.code);
    }
    return names;
  }();
  return text;
}

Meaning meaning_of_answer(std::optional<std::string_view> code, std::optional<int> status) {
  if (code) {
    if (const ErrorCodeRow* row = error_code_row(*code)) return row->meaning;
  }
  // How the provider's own codes are sent, read back from the status alone.
  static constexpr std::array<std::pair<int, Meaning>, 7> kByStatus{{
      {429, Meaning::rate_limited},
      {503, Meaning::unavailable},
      {500, Meaning::hidden},
      {409, Meaning::in_flight},
      {400, Meaning::definitive},
      {422, Meaning::definitive},
      {404, Meaning::not_found},
  }};
  const int number = status.value_or(0);
  if (number >= 200 && number < 300) return Meaning::success;
  for (const auto& [known, meaning] : kByStatus) {
    if (known == number) return meaning;
  }
  return number >= 500 ? Meaning::server_error : Meaning::other;
}

}  // namespace retryproof::provider
