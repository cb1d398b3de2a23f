#include "provider/tests/tls_client.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace retryproof::provider::testing {
namespace {

std::string openssl_reason() {
  std::string reason;
  while (const unsigned long code = ERR_get_error()) {
    char text[256];
    ERR_error_string_n(code, text, sizeof text);
    reason = text;
  }
  return reason;
}

void set_timeout(int fd, std::chrono::milliseconds timeout) {
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(timeout.count() / 1000);
  tv.tv_usec = static_cast<suseconds_t>((timeout.count() % 1000) * 1000);
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

int connect_loopback(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) throw std::runtime_error("socket() failed");
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    ::close(fd);
    throw std::runtime_error("cannot connect to port " + std::to_string(port));
  }
  return fd;
}

}  // namespace

std::string to_string(TlsEnd end) {
  switch (end) {
    case TlsEnd::close_notify:
      return "close_notify";
    case TlsEnd::bare_eof:
      return "EOF without close_notify";
    case TlsEnd::reset:
      return "reset";
    case TlsEnd::timeout:
      return "timeout";
    case TlsEnd::error:
      return "TLS error";
  }
  return "?";
}

struct TlsConnection::State {
  SSL_CTX* context = nullptr;
  SSL* ssl = nullptr;
  int fd = -1;

  ~State() {
    if (ssl != nullptr) SSL_free(ssl);
    if (context != nullptr) SSL_CTX_free(context);
    if (fd >= 0) ::close(fd);
  }
};

TlsConnection::TlsConnection(int port, const TlsClientOptions& options)
    : state_(std::make_unique<State>()) {
  ERR_clear_error();
  state_->context = SSL_CTX_new(TLS_client_method());
  if (state_->context == nullptr) throw std::runtime_error("SSL_CTX_new: " + openssl_reason());
  if (options.min_version != 0) SSL_CTX_set_min_proto_version(state_->context, options.min_version);
  if (options.max_version != 0) SSL_CTX_set_max_proto_version(state_->context, options.max_version);
  // The CA given, and nothing else: not the system's store.
  BIO* bio = BIO_new_mem_buf(options.ca_pem.data(), static_cast<int>(options.ca_pem.size()));
  X509* ca = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr);
  BIO_free(bio);
  if (ca == nullptr) throw std::runtime_error("the CA is not a PEM certificate");
  X509_STORE_add_cert(SSL_CTX_get_cert_store(state_->context), ca);
  X509_free(ca);
  SSL_CTX_set_verify(state_->context, SSL_VERIFY_PEER, nullptr);

  state_->fd = connect_loopback(port);
  set_timeout(state_->fd, options.handshake_timeout);
  state_->ssl = SSL_new(state_->context);
  SSL_set_fd(state_->ssl, state_->fd);
  X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(state_->ssl), options.verify_ip.c_str());
  if (SSL_connect(state_->ssl) != 1) {
    const int saved = errno;
    std::string reason = openssl_reason();
    if (reason.empty()) {
      reason = saved == EAGAIN || saved == EWOULDBLOCK ? "timeout"
               : saved != 0                            ? std::string("system: ") + strerror(saved)
                                                       : "the server closed the connection";
    }
    const long verify = SSL_get_verify_result(state_->ssl);
    if (verify != X509_V_OK)
      reason += std::string(" (") + X509_verify_cert_error_string(verify) + ")";
    throw std::runtime_error("TLS handshake failed: " + reason);
  }
}

TlsConnection::~TlsConnection() = default;

int TlsConnection::version() const {
  return SSL_version(state_->ssl);
}

bool TlsConnection::send(std::string_view bytes) {
  std::size_t written = 0;
  return SSL_write_ex(state_->ssl, bytes.data(), bytes.size(), &written) == 1 &&
         written == bytes.size();
}

TlsExchange TlsConnection::read_until_closed(std::chrono::milliseconds deadline) {
  set_timeout(state_->fd, deadline);
  TlsExchange exchange;
  char buffer[4096];
  while (true) {
    ERR_clear_error();
    errno = 0;
    std::size_t read = 0;
    if (SSL_read_ex(state_->ssl, buffer, sizeof buffer, &read) == 1) {
      exchange.received.append(buffer, read);
      continue;
    }
    const int saved = errno;
    const int error = SSL_get_error(state_->ssl, 0);
    const unsigned long code = ERR_peek_error();
    if (error == SSL_ERROR_ZERO_RETURN) {
      exchange.end = TlsEnd::close_notify;
    } else if (error == SSL_ERROR_SSL &&
               ERR_GET_REASON(code) == SSL_R_UNEXPECTED_EOF_WHILE_READING) {
      exchange.end = TlsEnd::bare_eof;
    } else if (error == SSL_ERROR_SYSCALL && saved == ECONNRESET) {
      exchange.end = TlsEnd::reset;
    } else if ((error == SSL_ERROR_SYSCALL && (saved == EAGAIN || saved == EWOULDBLOCK)) ||
               error == SSL_ERROR_WANT_READ) {
      // The receive deadline passed: OpenSSL's socket BIO takes the EAGAIN for "retry".
      exchange.end = TlsEnd::timeout;
    } else if (error == SSL_ERROR_SYSCALL && saved == 0) {
      exchange.end = TlsEnd::bare_eof;
    } else {
      exchange.end = TlsEnd::error;
      exchange.tls_error = openssl_reason() + " (SSL_get_error " + std::to_string(error) +
                           ", errno " + std::to_string(saved) + ")";
    }
    ERR_clear_error();
    return exchange;
  }
}

TlsExchange tls_exchange(int port, const std::string& ca_pem, const std::string& request) {
  TlsConnection connection(port, {.ca_pem = ca_pem});
  if (!connection.send(request)) return {"", TlsEnd::error, "the request could not be written"};
  return connection.read_until_closed();
}

std::optional<std::string> tls_handshake_error(int port, const std::string& ca_pem,
                                               std::chrono::milliseconds deadline) {
  try {
    TlsConnection connection(port, {.ca_pem = ca_pem, .handshake_timeout = deadline});
    return std::nullopt;
  } catch (const std::runtime_error& error) {
    return error.what();
  }
}

}  // namespace retryproof::provider::testing
