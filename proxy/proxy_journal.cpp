#include "proxy/proxy_journal.hpp"

#include <string>

namespace retryproof::proxy {

void add_upstream_fields(nlohmann::json& entry, const UpstreamFields& fields) {
  entry["upstreamStatus"] = fields.status != 0 ? nlohmann::json(fields.status) : nullptr;
  entry["upstreamError"] = fields.error != UpstreamFailure::none
                               ? nlohmann::json(std::string(row_of(fields.error).name))
                               : nullptr;
}

}  // namespace retryproof::proxy
