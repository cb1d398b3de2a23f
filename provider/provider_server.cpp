#include "provider/provider_server.hpp"

#include <nlohmann/json.hpp>

#include "common/json_text.hpp"
#include "provider/background_worker.hpp"
#include "provider/control_plane_guard.hpp"
#include "provider/http_server.hpp"
#include "provider/responses.hpp"

namespace retryproof::provider {
namespace {

constexpr std::string_view kControlPrefix = "/_test/";

// The core's own error for `status`, with the server's account of what was wrong: the
// core knows the error shape of the profile in force, the server knows the detail.
Decision with_detail(Decision error, std::string_view detail) {
  if (detail.empty()) return error;
  nlohmann::json body = nlohmann::json::parse(error.body, nullptr, false);
  if (!body.is_object() || !body.contains("detail")) return error;
  body["detail"] = detail;
  error.body = compact_json(body);
  return error;
}

}  // namespace

// Translates between the HTTP server and the core.
struct ProviderServer::Impl final : RequestHandler {
  Impl(ProviderServer& server_of, const ServerOptions& options)
      : owner(server_of),
        server(*this, {.options = options,
                       .max_body_bytes = server_of.core_.config().max_body_bytes,
                       .control_prefix = std::string(kControlPrefix)}) {
    // With port 0 the port is known once bound: the control plane's guard from web pages
    // needs it, before the first request.
    server_of.core_.control_plane().guard_with(ControlPlaneGuard(
        options.host, server.port(), options.tls ? ServedScheme::https : ServedScheme::http));
    server.start();
  }
  ~Impl() override { server.stop(); }

  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;

  Decision handle(const HttpRequest& request) override {
    return in_real_time(owner.core_.handle(request, owner.arrival()));
  }

  // A control call that judges the journal is answered from the background worker.
  void handle_async(const HttpRequest& request, Answer answer) override {
    if (!request.path.starts_with(kControlPrefix))
      return owner.answers_.pass(handle(request), answer);
    owner.core_.control_plane().handle_async(
        request, owner.arrival(), answer,
        [this](std::function<void()> task) { judging.post(std::move(task)); });
  }

  Decision complete(std::uint64_t pending_commit) override {
    return in_real_time(owner.core_.complete(pending_commit, owner.arrival()));
  }
  void complete_async(std::uint64_t pending_commit, Answer answer) override {
    owner.answers_.pass(complete(pending_commit), answer);
  }

  // The core holds in its own time; the server's timer waits in real time. Rounded up, so
  // that an answer never comes sooner than the journal says.
  Decision in_real_time(Decision decision) const {
    decision.delay = std::chrono::ceil<Millis>(owner.time_scale_.to_real(decision.delay));
    return decision;
  }

  void close_notify_sent(std::uint64_t journal_seq) override {
    owner.core_.close_notify_sent(journal_seq);
  }

  void refused(const RefusedRequest& request) override {
    owner.core_.record_refused(request, owner.arrival());
  }

  Decision server_error(int status, std::string_view code, std::string_view detail) override {
    // The statuses the core knows keep the profile's error shape; others are plain JSON.
    if (status == 400 || status == 413)
      return with_detail(owner.core_.library_error(status), detail);
    return error_response(status, code, detail);
  }

  ProviderServer& owner;
  HttpServer server;
  // After the server: destroyed before it, once server.stop() has ended every connection, so
  // that no answer of a task under way outlives the server it answers through.
  BackgroundWorker judging;
};

ProviderServer::ProviderServer(ProviderConfig config, const ServerOptions& options)
    : core_(std::move(config)),
      host_(options.host),
      tls_(options.tls.has_value()),
      started_(options.clock_starts_at_first_request
                   ? kNotStarted
                   : std::chrono::steady_clock::now().time_since_epoch().count()),
      time_scale_(options.time_scale),
      impl_(std::make_unique<Impl>(*this, options)),
      port_(impl_->server.port()) {}

ProviderServer::~ProviderServer() {
  stop();
}

void ProviderServer::stop() {
  answers_.open();  // an answer kept would keep its connection, and stop(), waiting
  impl_->server.stop();
}

int ProviderServer::add_listener() {
  return impl_->server.add_listener();
}

std::string ProviderServer::base_url() const {
  return base_url_of(port_);
}

std::string ProviderServer::base_url_of(int port) const {
  const bool ipv6 = host_.find(':') != std::string::npos;
  return (tls_ ? "https://" : "http://") + (ipv6 ? "[" + host_ + "]" : host_) + ":" +
         std::to_string(port);
}

Millis ProviderServer::now() const {
  const std::chrono::steady_clock::rep started = started_.load();
  if (started == kNotStarted) return Millis(0);
  const std::chrono::steady_clock::time_point origin{std::chrono::steady_clock::duration(started)};
  return time_scale_.to_scaled(std::chrono::steady_clock::now() - origin);
}

Millis ProviderServer::arrival() {
  std::chrono::steady_clock::rep expected = kNotStarted;
  started_.compare_exchange_strong(expected,
                                   std::chrono::steady_clock::now().time_since_epoch().count());
  return now();
}

}  // namespace retryproof::provider
