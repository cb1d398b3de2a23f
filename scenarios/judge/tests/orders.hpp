// Two orders, as the judge tests' clients send them: the operation field "orderId" tells
// one operation from the other.
#pragma once

#include <nlohmann/json.hpp>

namespace retryproof::scenarios::judge_orders {

inline const nlohmann::json kOrder1 = {{"orderId", "o-1"}, {"amount", 1}};
inline const nlohmann::json kOrder2 = {{"orderId", "o-2"}, {"amount", 2}};

}  // namespace retryproof::scenarios::judge_orders
