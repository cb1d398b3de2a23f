#include "provider/profile.hpp"

#include <algorithm>
#include <stdexcept>

namespace retryproof::provider {

const std::vector<ProfileRules>& profile_catalogue() {
  static const std::vector<ProfileRules> catalogue = {
      {Profile::baseline, "baseline", false, KeyLength::bytes, false, false,
       ErrorFormat::plain_json, "the original: a replay returns the stored job"},
      {Profile::stripe, "stripe", true, KeyLength::characters, false, false,
       ErrorFormat::plain_json, "Stripe API v1: replays the first response, 5xx included"},
      {Profile::ietf, "ietf", false, KeyLength::bytes, true, true, ErrorFormat::problem_json,
       "the IETF Idempotency-Key draft: quoted keys, problem+json errors"},
  };
  return catalogue;
}

const ProfileRules& rules_of(Profile profile) {
  const auto& catalogue = profile_catalogue();
  const auto row = std::find_if(catalogue.begin(), catalogue.end(), [&](const ProfileRules& rules) {
    return rules.profile == profile;
  });
  if (row == catalogue.end()) throw std::logic_error("a profile without a catalogue row");
  return *row;
}

std::string to_string(Profile profile) {
  return std::string(rules_of(profile).name);
}

std::string profile_names() {
  std::string names;
  for (const ProfileRules& rules : profile_catalogue())
    names += (names.empty() ? "" : ", ") + std::string(rules.name);
  return names;
}

Profile parse_profile(std::string_view name) {
  for (const ProfileRules& rules : profile_catalogue()) {
    if (rules.name == name) return rules.profile;
  }
  throw std::invalid_argument("unknown profile \"" + std::string(name) +
                              "\"; known profiles: " + profile_names());
}

}  // namespace retryproof::provider
