// The TCP connections a process group holds, by their local ports, read from /proc: what a
// session killed under traffic had open, so that what the provider reads on them after the
// kill, however late, is charged to the runs the dead process was serving and not to the
// reruns on its successor (scenarios/driver/attribution.hpp).
#pragma once

#include <sys/types.h>

#include <set>

namespace retryproof::scenarios {

// The local ports of the IPv4 and IPv6 TCP sockets held by the processes whose process group
// is `group`. Stop the group first (SIGSTOP), or it may open more meanwhile. Empty where
// /proc cannot be read.
std::set<int> tcp_ports_of_group(pid_t group);

}  // namespace retryproof::scenarios
