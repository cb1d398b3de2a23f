// Byte-level HTTPS for tests: a real OpenSSL client (raw SSL_* calls) on a real socket, that
// says what the server's TLS stream carried and exactly how it ended: with a close_notify,
// a bare FIN, or a reset.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace retryproof::provider::testing {

enum class TlsEnd {
  close_notify,  // the server's close_notify alert: the TLS stream ended where it meant to
  bare_eof,      // TCP FIN with no close_notify before it
  reset,         // ECONNRESET
  timeout,       // still open at the deadline
  error,         // any other TLS error (tls_error says which)
};
std::string to_string(TlsEnd end);

struct TlsExchange {
  std::string received;  // the application data the server sent, decrypted
  TlsEnd end = TlsEnd::timeout;
  std::string tls_error;
};

struct TlsClientOptions {
  std::string ca_pem;                   // the only certificate trusted
  std::string verify_ip = "127.0.0.1";  // checked against the certificate's names
  int min_version = 0;                  // TLS1_2_VERSION etc.; 0 leaves OpenSSL's default
  int max_version = 0;
  std::chrono::milliseconds handshake_timeout = std::chrono::seconds(5);
};

// One TLS connection to 127.0.0.1:port that verifies the server against `ca_pem` alone.
class TlsConnection {
 public:
  // Connects and handshakes; throws std::runtime_error saying why if it cannot (the
  // server's certificate, a plain HTTP server answering, the version refused).
  TlsConnection(int port, const TlsClientOptions& options);
  ~TlsConnection();
  TlsConnection(const TlsConnection&) = delete;
  TlsConnection& operator=(const TlsConnection&) = delete;

  bool send(std::string_view bytes);
  // Everything until the server ends the stream, and how it ended.
  TlsExchange read_until_closed(std::chrono::milliseconds deadline = std::chrono::seconds(5));
  // The negotiated protocol version (TLS1_2_VERSION, TLS1_3_VERSION).
  int version() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// Connects, sends `request`, reads until the server ends the stream.
TlsExchange tls_exchange(int port, const std::string& ca_pem, const std::string& request);

// The error a TLS handshake with 127.0.0.1:port ends in, or nothing if it succeeds, within
// `deadline`; "timeout" if it has not ended by then.
std::optional<std::string> tls_handshake_error(
    int port, const std::string& ca_pem,
    std::chrono::milliseconds deadline = std::chrono::seconds(5));

}  // namespace retryproof::provider::testing
