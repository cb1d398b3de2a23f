// RETRYPROOF_CLIENT: the scenario's client settings, as the harness hands them to every
// client it runs ({"attempts", "timeoutMs", "baseDelayMs", "maxDelayMs", "timeLimitMs"}).
// A client may honour them (the reference client does) or not; a client that does can
// declare `follows-settings`.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "client_under_test/retrying_client.hpp"

namespace retryproof::client {

// What a scenario gives its client unless it says otherwise, and what `retryproof client`
// runs with when neither flags nor RETRYPROOF_CLIENT say.
inline const ClientSettings kDefaultSettings{
    .attempts = 3, .base_delay = Millis(100), .max_delay = Millis(1000), .timeout = Millis(1000)};

nlohmann::json settings_to_contract(const ClientSettings& settings, Millis time_limit);

// Reads the variable's value; fields it does not name keep `defaults`. Throws
// std::invalid_argument naming the field that is wrong.
ClientSettings settings_from_contract(const std::string& text, ClientSettings defaults);

}  // namespace retryproof::client
