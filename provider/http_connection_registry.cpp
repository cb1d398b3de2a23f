// The live connections of a server, by id, so that stop can close them all.
#include "provider/http_connection.hpp"

namespace retryproof::provider {

std::uint64_t ConnectionRegistry::add(std::weak_ptr<Connection> connection) {
  std::lock_guard lock(mutex_);
  connections_.emplace(++next_id_, std::move(connection));
  return next_id_;
}

void ConnectionRegistry::remove(std::uint64_t id) {
  std::lock_guard lock(mutex_);
  connections_.erase(id);
}

std::vector<std::shared_ptr<Connection>> ConnectionRegistry::live() const {
  std::lock_guard lock(mutex_);
  std::vector<std::shared_ptr<Connection>> live;
  for (const auto& [id, connection] : connections_) {
    if (auto alive = connection.lock()) live.push_back(std::move(alive));
  }
  return live;
}

}  // namespace retryproof::provider
