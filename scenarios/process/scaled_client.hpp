// Running a client N times faster (--time-scale N), unmodified: the reference client and
// the mutants through their injected clock (`retryproof client --time-scale N`), an
// external program under libfaketime, which makes the C library's clocks run N times faster
// and its sleeps and poll timeouts N times shorter, so that Python's time.sleep and Node's
// setTimeout follow. A program that escapes it (linked statically, or reading the clock by
// system calls) is caught by the clock probe (clock_probe.hpp).
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/time_scale.hpp"

namespace retryproof::scenarios {

// The flags that run `retryproof client` at the scale; none at scale 1.
std::vector<std::string> time_scale_arguments(TimeScale scale);

// Where Debian's libfaketime package puts the library, if it is installed.
std::optional<std::filesystem::path> find_libfaketime();

// The environment that runs an external program at the scale: LD_PRELOAD of libfaketime
// (before any preload already set) and FAKETIME. Empty at scale 1. Throws
// std::runtime_error, saying what to install, when libfaketime is missing.
std::map<std::string, std::string> faketime_environment(TimeScale scale);

}  // namespace retryproof::scenarios
