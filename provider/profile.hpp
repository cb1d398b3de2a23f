// Conformance profiles: the same provider speaking as a particular real-world contract.
// A profile is a row of rules; the core reads the rules, never the profile's name.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace retryproof::provider {

enum class Profile { baseline, stripe, ietf };

enum class KeyLength { bytes, characters };
enum class ErrorFormat {
  plain_json,     // {"error": "<code>", "detail": "..."}
  problem_json,   // RFC 9457: application/problem+json with the same code
  stripe_object,  // {"error": {"type": ..., "code": "<code>", "message": "..."}}, as Stripe
};

struct ProfileRules {
  Profile profile;
  std::string_view name;
  // A replay answers with the response the first execution produced, 5xx included,
  // instead of the stored job.
  bool replays_first_response;
  KeyLength key_length;  // how the 255 limit on a key is counted
  // A structured-field string ("abc", with \" and \\ escapes) is the key abc.
  bool reads_quoted_key;
  bool refuses_repeated_key_header;  // two Idempotency-Key headers are a 400
  ErrorFormat errors;
  std::string_view summary;  // for --help
};

// Every profile, the default first.
const std::vector<ProfileRules>& profile_catalogue();
const ProfileRules& rules_of(Profile profile);

std::string to_string(Profile profile);

// Throws std::invalid_argument naming the known profiles.
Profile parse_profile(std::string_view name);

// "baseline, stripe, ietf"
std::string profile_names();

}  // namespace retryproof::provider
