#include "proxy/proxy_server.hpp"

#include <stdexcept>

#include "provider/background_worker.hpp"
#include "provider/control_plane_guard.hpp"
#include "provider/http_server.hpp"
#include "provider/responses.hpp"

namespace retryproof::proxy {
namespace {

constexpr std::string_view kControlPrefix = "/_test/";

}  // namespace

using provider::Decision;

// Translates between the HTTP server, the core and the upstream client.
struct ProxyServer::Impl final : provider::RequestHandler {
  Impl(ProxyServer& server_of, const provider::ServerOptions& options, UpstreamUrl url,
       UpstreamLimits limits, std::size_t max_body_bytes, UpstreamTrust trust)
      : owner(server_of),
        server(*this, {.options = options,
                       .max_body_bytes = max_body_bytes,
                       .control_prefix = std::string(kControlPrefix)}),
        upstream(std::move(url), limits, std::move(trust)) {
    // With port 0 the port is known once bound: the control plane's guard from web pages
    // needs it, before the first request.
    server_of.core_.control_plane().guard_with(provider::ControlPlaneGuard(
        options.host, server.port(),
        options.tls ? provider::ServedScheme::https : provider::ServedScheme::http));
    server.start();
  }
  // The upstream first: its last answers reach connections that are still served. It is
  // destroyed first too, while the server its answers post to still exists.
  ~Impl() override { stop(); }

  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;

  void stop() {
    upstream.stop();
    server.stop();
  }

  void handle_async(const provider::HttpRequest& request, Answer answer) override {
    if (request.path.starts_with(kControlPrefix)) {  // never forwarded
      // A control call that judges the journal is answered from the background worker.
      return owner.core_.control_plane().handle_async(
          request, owner.now(), answer,
          [this](std::function<void()> task) { judging.post(std::move(task)); });
    }
    settle(owner.core_.begin(request, owner.now()), std::move(answer));
  }

  void complete_async(std::uint64_t pending_commit, Answer answer) override {
    settle(owner.core_.release(pending_commit, owner.now()), std::move(answer));
  }

  // Answers now, or forwards and answers with what the core makes of the upstream's answer.
  void settle(Disposition step, Answer answer) {
    if (auto* decided = std::get_if<Decision>(&step)) return answer(std::move(*decided));
    const Forward& forward = std::get<Forward>(step);
    upstream.send(forward.request, [this, ticket = forward.ticket,
                                    answer = std::move(answer)](UpstreamAnswer upstream_answer) {
      Decision decision;
      try {
        decision = owner.core_.finish(ticket, upstream_answer, owner.now());
      } catch (const std::exception& error) {
        decision = owner.core_.error(500, "internal_error", error.what());
      }
      answer(std::move(decision));
    });
  }

  // A request the server answered itself, before the core: journaled, as at the provider.
  void refused(const provider::RefusedRequest& request) override {
    owner.core_.record_refused(request, owner.now());
  }

  void close_notify_sent(std::uint64_t journal_seq) override {
    owner.core_.close_notify_sent(journal_seq);
  }

  // Only the asynchronous forms are asked for: a forward cannot be answered at once.
  Decision handle(const provider::HttpRequest&) override {
    throw std::logic_error("the proxy answers through handle_async");
  }
  Decision complete(std::uint64_t) override {
    throw std::logic_error("the proxy answers through complete_async");
  }

  Decision server_error(int status, std::string_view code, std::string_view detail) override {
    // As the provider's server: the statuses the core knows (a request that is not HTTP, a
    // body over the limit) in the shape's error format; the server's others plain JSON.
    if (status == 400 || status == 413) return owner.core_.error(status, code, detail);
    return provider::error_response(status, code, detail);
  }

  ProxyServer& owner;
  provider::HttpServer server;
  UpstreamClient upstream;
  // After the server: destroyed before it, once stop() has ended every connection, so that
  // no answer of a task under way outlives the server it answers through.
  provider::BackgroundWorker judging;
};

ProxyServer::ProxyServer(ProxyConfig config, const provider::ServerOptions& options,
                         UpstreamUrl upstream, UpstreamLimits limits, std::size_t max_body_bytes,
                         UpstreamTrust trust)
    : core_(std::move(config)),
      host_(options.host),
      tls_(options.tls.has_value()),
      started_(std::chrono::steady_clock::now()),
      impl_(std::make_unique<Impl>(*this, options, std::move(upstream), limits, max_body_bytes,
                                   std::move(trust))),
      port_(impl_->server.port()) {}

ProxyServer::~ProxyServer() {
  stop();
}

void ProxyServer::stop() {
  impl_->stop();
}

std::string ProxyServer::base_url() const {
  const bool ipv6 = host_.find(':') != std::string::npos;
  return (tls_ ? "https://" : "http://") + (ipv6 ? "[" + host_ + "]" : host_) + ":" +
         std::to_string(port_);
}

Millis ProxyServer::now() const {
  return std::chrono::duration_cast<Millis>(std::chrono::steady_clock::now() - started_);
}

}  // namespace retryproof::proxy
