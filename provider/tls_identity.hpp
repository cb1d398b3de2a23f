// The certificate and key a server presents over TLS: read from the user's files (checked,
// with errors that name the file and the problem), or generated at start for a test run: a
// CA of its own and a leaf it signed for localhost, 127.0.0.1 and ::1, so that a client
// trusts the server by trusting the CA file alone. OpenSSL only; no Boost here.
#pragma once

#include <filesystem>
#include <string>

namespace retryproof::provider {

struct TlsIdentity {
  std::string certificate_chain_pem;  // the server's certificate first, then any intermediates
  std::string private_key_pem;
};

// The text of a certificate or key file. Throws std::runtime_error naming `what` ("the
// certificate file") and the path when it is a directory or cannot be read.
std::string read_tls_file(const std::filesystem::path& path, const std::string& what);

// Reads `certificate` (PEM, one or more certificates) and `key` (PEM private key) and checks
// that they are readable, parse, and that the key is the certificate's. Throws
// std::runtime_error naming the file and what is wrong with it.
TlsIdentity load_tls_identity(const std::filesystem::path& certificate,
                              const std::filesystem::path& key);

struct GeneratedTls {
  TlsIdentity identity;            // the leaf and its key: what the server presents
  std::string ca_certificate_pem;  // what a client trusts
};

// A fresh CA (its key thrown away once it has signed) and a leaf valid for localhost,
// 127.0.0.1 and ::1, both ECDSA P-256, valid from an hour ago for 30 days. Throws
// std::runtime_error if OpenSSL fails.
GeneratedTls generate_tls_identity();

}  // namespace retryproof::provider
