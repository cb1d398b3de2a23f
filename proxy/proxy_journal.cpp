#include "proxy/proxy_journal.hpp"

namespace retryproof::proxy {

void to_json(nlohmann::json& json, const ProxyEntry& entry) {
  provider::to_json(json, static_cast<const provider::JournalEntry&>(entry));
  json["upstreamStatus"] = entry.upstream_status ? nlohmann::json(*entry.upstream_status) : nullptr;
  json["upstreamError"] = entry.upstream_error
                              ? nlohmann::json(std::string(row_of(*entry.upstream_error).name))
                              : nullptr;
}

}  // namespace retryproof::proxy
