#include "scenarios/process/process_sockets.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace retryproof::scenarios {
namespace {

// Field 5 of /proc/PID/stat, after the command in parentheses (which may hold spaces).
bool in_group(const std::filesystem::path& process, pid_t group) {
  std::ifstream stat(process / "stat");
  std::string text;
  std::getline(stat, text);
  const auto end_of_command = text.rfind(')');
  if (end_of_command == std::string::npos) return false;
  std::istringstream fields(text.substr(end_of_command + 1));
  char state = 0;
  pid_t parent = 0;
  pid_t process_group = 0;
  fields >> state >> parent >> process_group;
  return fields && process_group == group;
}

// The socket inodes a process's descriptors name ("socket:[12345]").
void add_socket_inodes(const std::filesystem::path& process, std::set<unsigned long>& inodes) {
  std::error_code error;
  for (const auto& descriptor : std::filesystem::directory_iterator(process / "fd", error)) {
    const std::string target = std::filesystem::read_symlink(descriptor.path(), error).string();
    if (error || !target.starts_with("socket:[")) continue;
    inodes.insert(std::strtoul(target.c_str() + 8, nullptr, 10));
  }
}

// /proc/net/tcp and tcp6: "sl local_address rem_address st ... uid timeout inode", the local
// address as HEX_IP:HEX_PORT.
void add_ports(const char* table, const std::set<unsigned long>& inodes, std::set<int>& ports) {
  std::ifstream file(table);
  std::string line;
  std::getline(file, line);  // the header
  while (std::getline(file, line)) {
    std::istringstream fields(line);
    std::string slot, local, remote, state, queues, timer, retransmits, uid, timeout;
    unsigned long inode = 0;
    fields >> slot >> local >> remote >> state >> queues >> timer >> retransmits >> uid >>
        timeout >> inode;
    if (!fields || !inodes.contains(inode)) continue;
    const auto colon = local.rfind(':');
    if (colon != std::string::npos)
      ports.insert(static_cast<int>(std::strtol(local.c_str() + colon + 1, nullptr, 16)));
  }
}

}  // namespace

std::set<int> tcp_ports_of_group(pid_t group) {
  std::set<unsigned long> inodes;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", error)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    if (in_group(entry.path(), group)) add_socket_inodes(entry.path(), inodes);
  }
  std::set<int> ports;
  if (inodes.empty()) return ports;
  add_ports("/proc/net/tcp", inodes, ports);
  add_ports("/proc/net/tcp6", inodes, ports);
  return ports;
}

}  // namespace retryproof::scenarios
