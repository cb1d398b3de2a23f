#include "provider/profile.hpp"

#include <stdexcept>

namespace retryproof::provider {

std::string to_string(Profile profile) {
  switch (profile) {
    case Profile::baseline:
      return "baseline";
    case Profile::stripe:
      return "stripe";
    case Profile::ietf:
      return "ietf";
  }
  return "baseline";
}

Profile parse_profile(std::string_view name) {
  for (const Profile profile : {Profile::baseline, Profile::stripe, Profile::ietf}) {
    if (to_string(profile) == name) return profile;
  }
  throw std::invalid_argument("unknown profile \"" + std::string(name) +
                              "\"; known profiles: baseline, stripe, ietf");
}

}  // namespace retryproof::provider
