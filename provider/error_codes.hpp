// The provider's error codes, one table: what each means to a client deciding whether to
// retry, the status the provider sends it with, its problem title, and whether a shape may
// restate it. The journal records, for every error answer, the code it was written from
// (JournalEntry::code), whatever status and code the shape sent instead: AWS throttles with
// a 400 ThrottlingException, which a shape maps from rate_limited, and the verdicts read it
// as the rate limit it is, not as the 400 it looks like.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace retryproof::provider {

// What an answer means to a client deciding whether to send its create again.
enum class Meaning {
  success,       // a 2xx: nothing to retry
  rate_limited,  // turned away before any work: retry after its Retry-After
  unavailable,   // a transient failure: retry with the same key after a backoff
  hidden,        // a failure that may hide a commit (a 500): retry with the same key
  in_flight,     // the key's first request is still in flight: retry later with the same key
  definitive,    // the request itself is wrong: no retry can change it
  server_error,  // another failure of the server (a 5xx: a proxy's upstream unreachable)
  not_found,     // nothing is there: a lookup's proof that no job was made
  other,         // none of those: a wrong method, a body too large
};

struct ErrorCodeRow {
  std::string_view code;
  int status;  // the provider's own status for it (capacity_exhausted's is 507; 503 at a cap)
  Meaning meaning;
  std::string_view title;  // short, the same for every occurrence (RFC 9457 3.1.4)
  // The provider answers data-plane requests with it, so a shape's "errors.codes" may
  // restate it; the others are the proxy's own or the control plane's.
  bool restatable;
};

// Every code, the journal's first: an entry's code packs as its index here when it is among
// the first 15 (JournalRecord::code), and is kept whole otherwise.
const std::vector<ErrorCodeRow>& error_code_table();
const ErrorCodeRow* error_code_row(std::string_view code);
// "bad_request, capacity_exhausted, ...": the codes a shape may restate.
std::string_view restatable_codes_text();

// What an answer means: by its code when the journal recorded one this table knows, else
// by its status as the provider's own codes are sent (an old saved journal, an upstream's
// answer no shape mapped): 2xx success, 429 rate_limited, 503 unavailable, 500 hidden, 409
// in_flight, 400 and 422 definitive, 404 not_found, another 5xx server_error.
Meaning meaning_of_answer(std::optional<std::string_view> code, std::optional<int> status);

}  // namespace retryproof::provider
