// Whether a file that is written only at the end (explore's counterexample) can be written,
// checked before the work starts and without creating it: a run of many minutes should not
// end in "cannot write". Report files that `run` writes are opened up front instead.
#pragma once

#include <optional>
#include <string>

namespace retryproof::scenarios {

// Why `path` cannot be written ("its directory /x does not exist"), or nothing.
std::optional<std::string> unwritable(const std::string& path);

}  // namespace retryproof::scenarios
