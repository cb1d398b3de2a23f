#include "provider/journal.hpp"

namespace retryproof::provider {

std::string to_string(Outcome outcome) {
  switch (outcome) {
    case Outcome::new_operation:
      return "new";
    case Outcome::replay:
      return "replay";
    case Outcome::rejected:
      return "rejected";
    case Outcome::conflict:
      return "conflict";
    case Outcome::missing_key:
      return "missing_key";
    case Outcome::invalid:
      return "invalid";
    case Outcome::lookup_hit:
      return "lookup_hit";
    case Outcome::lookup_miss:
      return "lookup_miss";
    case Outcome::lookup_failed:
      return "lookup_failed";
  }
  return "invalid";
}

nlohmann::json to_json(const JournalEntry& entry) {
  const auto or_null = [](const auto& optional) -> nlohmann::json {
    return optional ? nlohmann::json(*optional) : nlohmann::json(nullptr);
  };
  return {
      {"seq", entry.seq},
      {"atMs", entry.at.count()},
      {"method", entry.method},
      {"path", entry.path},
      {"key", or_null(entry.key)},
      {"fingerprint", or_null(entry.fingerprint)},
      {"outcome", to_string(entry.outcome)},
      {"fault", or_null(entry.fault)},
      {"status", or_null(entry.status)},
      {"delivered", entry.delivered},
      {"jobId", or_null(entry.job_id)},
  };
}

}  // namespace retryproof::provider
