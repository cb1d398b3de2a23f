// The proxy's side of TLS to an https:// upstream: what it trusts (the system's CAs, or
// --upstream-ca's alone), the name the upstream's certificate must carry, and why a
// handshake failed, in words a person can act on. Verification is always on: nothing here
// turns it off. OpenSSL only; the streams are Asio's, in upstream_client.cpp.
#pragma once

#include <filesystem>
#include <string>

struct ssl_ctx_st;  // SSL_CTX
struct ssl_st;      // SSL

namespace retryproof::proxy {

struct UpstreamTrust {
  std::filesystem::path ca_file;  // empty: the system's CAs
  std::string ca_pem;             // ca_file's certificates, read and checked at start
};

// Reads --upstream-ca. Throws std::runtime_error naming the file when it cannot be read
// or holds no PEM certificate, so that a wrong path is a usage error at start rather than a
// 502 at the first request.
UpstreamTrust read_upstream_ca(const std::filesystem::path& file);

// Makes `context` a client context that verifies the upstream's chain against `trust`,
// over TLS 1.2 or 1.3. Throws std::runtime_error if OpenSSL fails.
void configure_upstream_context(ssl_ctx_st* context, const UpstreamTrust& trust);

// Names the host the certificate must be for (a DNS name, or an IP address) and, for a
// name, sends it as SNI (RFC 6066 allows no address there).
void expect_upstream_host(ssl_st* connection, const std::string& host);

// The detail of a failed handshake: when the certificate was refused, the verify result
// in OpenSSL's words (X509_verify_cert_error_string) and in plain ones (expired, an
// unknown CA, another host's certificate); else `error`, OpenSSL's reason.
std::string handshake_failure(ssl_st* connection, const UpstreamTrust& trust,
                              const std::string& host, const std::string& error);

}  // namespace retryproof::proxy
