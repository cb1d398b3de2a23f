// A session client in C++ (docs/sessions.md): one long-lived JobsApi object serves every
// operation of the instance, as a service keeps one SDK client; embed/cpp/session.hpp's
// serve() reads the operations, runs them concurrently and writes the tagged outcome lines.
//
// Each operation: the idempotency key is the operationId, the same body on every attempt,
// at most RETRYPROOF_CLIENT's attempts POSTs with capped, jittered backoff, a lookup by key
// after any answer it could not see. A rerun after a crash sends the same key, so the
// provider replays the job it made (or the lookup finds it): never a second job.
#include <httplib.h>

#include <chrono>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>

#include "embed/cpp/session.hpp"

namespace {

using nlohmann::json;
namespace session = retryproof::session;

struct Settings {
  int attempts = 3;
  int timeout_ms = 1000;
  int base_delay_ms = 100;
  int max_delay_ms = 1000;
};

Settings read_settings() {
  const char* text = std::getenv("RETRYPROOF_CLIENT");
  const json given = json::parse(text ? text : "{}", nullptr, false);
  if (!given.is_object()) return {};
  return {given.value("attempts", 3), given.value("timeoutMs", 1000),
          given.value("baseDelayMs", 100), given.value("maxDelayMs", 1000)};
}

std::string percent_encoded(const std::string& text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (const unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += {'%', kHex[c >> 4], kHex[c & 15]};
    }
  }
  return out;
}

std::string job_id_in(const std::string& body) {
  const json job = json::parse(body, nullptr, false);
  return job.is_object() && job.contains("id") && job["id"].is_string() ? job["id"] : "";
}

class JobsApi {
 public:
  JobsApi(std::string base_url, Settings settings)
      : base_url_(std::move(base_url)), settings_(settings) {}

  json create(const session::Operation& op, std::uint64_t seed) const {
    std::mt19937_64 jitter(seed ^ std::hash<std::string>{}(op.id));
    const std::string body = op.payload.dump();
    bool in_flight = false;  // a 409: a request with this key may still commit
    for (int attempt = 1;; ++attempt) {
      const httplib::Result posted =
          client().Post("/jobs", {{"Idempotency-Key", op.operation_id}}, body, "application/json");
      const int status = posted ? posted->status : 0;
      if ((status == 200 || status == 201) && !job_id_in(posted->body).empty())
        return session::succeeded(job_id_in(posted->body));
      if (status >= 400 && status < 500 && status != 409 && status != 429)
        return session::failed("rejected: " + std::to_string(status));
      in_flight |= status == 409;
      const bool unseen = status != 409 && status != 429 && status != 503;  // may have committed
      if (unseen || attempt == settings_.attempts) {
        const httplib::Result found =
            client().Get("/jobs/by-idempotency-key/" + percent_encoded(op.operation_id));
        if (found && found->status == 200 && !job_id_in(found->body).empty())
          return session::succeeded(job_id_in(found->body));
        if (!found || found->status != 404) return session::unknown("the lookup failed");
        if (attempt == settings_.attempts) {
          return in_flight ? session::unknown("still in flight when the attempts ran out")
                           : session::failed("not committed after " + std::to_string(attempt) +
                                             " attempts");
        }
      }
      const int step = std::min(settings_.max_delay_ms, settings_.base_delay_ms << (attempt - 1));
      std::this_thread::sleep_for(std::chrono::milliseconds(
          step / 2 + static_cast<int>(jitter() % static_cast<std::uint64_t>(step / 2 + 1))));
    }
  }

 private:
  // A connection per request: httplib's Client serves one thread at a time.
  httplib::Client client() const {
    httplib::Client client(base_url_);
    const auto timeout = std::chrono::milliseconds(settings_.timeout_ms);
    client.set_connection_timeout(timeout);
    client.set_read_timeout(timeout);
    client.set_write_timeout(timeout);
    return client;
  }

  std::string base_url_;
  Settings settings_;
};

}  // namespace

int main() {
  const char* base_url = std::getenv("RETRYPROOF_BASE_URL");
  if (base_url == nullptr) {
    std::cerr << "session_client: RETRYPROOF_BASE_URL is not set\n";
    return 2;
  }
  const char* seed = std::getenv("RETRYPROOF_SEED");
  const std::uint64_t session_seed =
      seed ? std::strtoull(seed, nullptr, 10) : std::random_device{}();
  const JobsApi api(base_url, read_settings());  // one for the instance's every call
  return session::serve([&](const session::Operation& op) { return api.create(op, session_seed); });
}
