#include "scenarios/commands/token_relay.hpp"

#include <array>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string_view>

namespace retryproof::scenarios {
namespace {

// The answer's headers the page depends on (its Content-Security-Policy above all), passed
// back as the server sent them.
constexpr std::array<std::string_view, 6> kPassedBack = {
    "Content-Security-Policy", "X-Content-Type-Options",       "Referrer-Policy",
    "Cache-Control",           "Cross-Origin-Resource-Policy", "WWW-Authenticate"};

void refuse(httplib::Response& response, int status, const std::string& code,
            const std::string& detail) {
  response.status = status;
  response.set_content(relay_error_body(code, detail), "application/json");
}

// The words of a control plane's error body, whatever its profile's form.
std::string words_of(const std::string& body) {
  const nlohmann::json parsed = nlohmann::json::parse(body, nullptr, false);
  if (!parsed.is_object() || !parsed.contains("error")) return body;
  const nlohmann::json& error = parsed["error"];
  if (error.is_object()) return error.value("message", error.dump());
  return parsed.value("detail", error.is_string() ? error.get<std::string>() : error.dump());
}

}  // namespace

std::string relay_error_body(const std::string& code, const std::string& detail) {
  return nlohmann::json{{"error", code}, {"detail", detail}}.dump();
}

TokenRelay::TokenRelay(std::string upstream, std::optional<std::string> token)
    : upstream_(std::move(upstream)), token_(std::move(token)) {
  const auto handler = [this](const httplib::Request& request, httplib::Response& response) {
    relay(request, response);
  };
  const auto read_only = [](const httplib::Request&, httplib::Response& response) {
    refuse(response, 405, "method_not_allowed",
           "ui-snapshot's relay only reads (GET): it lends the control token to take a snapshot, "
           "never to change the server");
  };
  server_.Get(".*", handler);
  server_.Post(".*", read_only);
  server_.Put(".*", read_only);
  server_.Patch(".*", read_only);
  server_.Delete(".*", read_only);
  port_ = server_.bind_to_any_port("127.0.0.1");
  if (port_ <= 0) throw std::runtime_error("cannot listen on a loopback port for the relay");
  // Bound is listening: Chromium may connect before the thread reaches accept().
  thread_ = std::thread([this] {
    server_.listen_after_bind();
    listening_done_ = true;
  });
}

TokenRelay::~TokenRelay() {
  // cpp-httplib's stop() is lost on a server whose thread has not yet begun to listen, and
  // the join would then wait for ever: stop it once it is listening (or has given up).
  while (!server_.is_running() && !listening_done_)
    std::this_thread::yield();
  server_.stop();
  if (thread_.joinable()) thread_.join();
}

RelayTally TokenRelay::tally() const {
  std::lock_guard lock(mutex_);
  return tally_;
}

void TokenRelay::note(bool refused, const std::string& problem) {
  std::lock_guard lock(mutex_);
  (refused ? tally_.refused : tally_.unreachable) += 1;
  if (tally_.first_problem.empty()) tally_.first_problem = problem;
}

bool TokenRelay::is_own(const httplib::Request& request) const {
  const std::string port = std::to_string(port_);
  const std::string host = request.get_header_value("Host");
  if (host != "127.0.0.1:" + port && host != "localhost:" + port) return false;
  return !request.has_header("Origin") ||
         request.get_header_value("Origin") == "http://127.0.0.1:" + port;
}

void TokenRelay::relay(const httplib::Request& request, httplib::Response& response) {
  if (!is_own(request))
    return refuse(response, 403, "forbidden_origin",
                  "ui-snapshot's relay answers its own Chromium only (Host and Origin "
                  "127.0.0.1:" +
                      std::to_string(port_) + ")");
  if (!request.path.starts_with("/_test/"))
    return refuse(response, 404, "not_found", "ui-snapshot's relay serves /_test/ only");
  httplib::Client client(upstream_);
  client.set_connection_timeout(5);
  client.set_read_timeout(30);
  httplib::Headers headers;
  if (token_) headers.emplace("Authorization", "Bearer " + *token_);
  const auto answer = client.Get(request.target, headers);
  if (!answer) {
    const std::string problem =
        upstream_ + " did not answer (" + httplib::to_string(answer.error()) + ")";
    note(false, problem);
    return refuse(response, 502, "server_unreachable", problem);
  }
  if (answer->status == 401 || answer->status == 403) note(true, words_of(answer->body));
  response.status = answer->status;
  for (const std::string_view name : kPassedBack) {
    const std::string key(name);
    if (answer->has_header(key)) response.set_header(key, answer->get_header_value(key));
  }
  response.set_content(answer->body, answer->get_header_value("Content-Type"));
}

}  // namespace retryproof::scenarios
