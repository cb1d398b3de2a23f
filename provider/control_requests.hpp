// The parts of a control-plane (/_test/) request that the provider and the proxy read the
// same way: the control token, the bodies of /_test/reset and /_test/clock, and the query of
// a page of /_test/journal.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/millis.hpp"
#include "provider/http_types.hpp"

namespace retryproof::provider {

// Whether the headers carry "Authorization: Bearer <token>". The scheme is
// case-insensitive (RFC 6750, RFC 9110); the token is not, and is compared in constant time.
bool carries_bearer_token(const Headers& headers, const std::string& token);

// What is wrong with a request's control token, in the words of a 401's detail: a caller
// (a script, the live page) must be able to tell "you sent none" from "you sent the wrong
// one", since the fixes differ. Every 401 of the control plane says one of these.
enum class TokenProblem { missing, not_bearer, wrong };
std::optional<TokenProblem> token_problem(const Headers& headers, const std::string& token);
std::string token_problem_detail(TokenProblem problem);
// The WWW-Authenticate challenge for it (RFC 6750 3.1: an error code only when a token came).
std::string token_challenge(TokenProblem problem);

// The body of POST /_test/reset: {} or {"seed": N}. The seed, if given. Throws
// std::invalid_argument saying what is wrong.
std::optional<std::uint64_t> read_reset_body(const std::string& body);

// The body of POST /_test/clock: {"advance": "25h"}. Throws std::invalid_argument saying
// what is wrong.
Millis read_clock_body(const std::string& body);

// The query of GET /_test/journal: "" (the whole journal), or after=SEQ&limit=N, a page of
// at most N (1 to kMaxJournalPage) entries after SEQ. Throws std::invalid_argument naming
// the parameter that is wrong.
inline constexpr std::uint64_t kMaxJournalPage = 100000;
struct JournalPageQuery {
  std::uint64_t after = 0;
  std::uint64_t limit = 0;  // 0: no page was asked for
};
JournalPageQuery read_journal_query(std::string_view query);

}  // namespace retryproof::provider
