// Time as every part of retryproof counts it: whole milliseconds.
#pragma once

#include <chrono>

namespace retryproof {

using Millis = std::chrono::milliseconds;

}  // namespace retryproof
