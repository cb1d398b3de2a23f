// The certificate every HTTPS scenario of a run serves (`run --tls`, or "tls": true in a
// scenario), and the files a client trusts it through: one CA for the whole run, made on
// first use and removed when the program ends.
#pragma once

#include <filesystem>
#include <map>
#include <string>

#include "provider/tls_identity.hpp"

namespace retryproof::scenarios {

struct RunTls {
  provider::TlsIdentity identity;  // what each scenario's provider presents
  std::filesystem::path ca_file;   // the run's CA alone
  // The run's CA and the system's (the file OpenSSL trusts by default): what replaces the
  // system's store in SSL_CERT_FILE and its kin, so that a client under test can still
  // reach real HTTPS services while it trusts the provider.
  std::filesystem::path bundle_file;
};

// Made on the first call (thread-safe), then the same for the life of the program. Throws
// std::runtime_error if the certificate or its files cannot be made.
const RunTls& run_tls();

// What a client is given to trust it: SSL_CERT_FILE, REQUESTS_CA_BUNDLE and CURL_CA_BUNDLE
// (the bundle: each replaces the default store of OpenSSL, Python's requests and curl),
// NODE_EXTRA_CA_CERTS (the CA: Node adds it to its own) and RETRYPROOF_CA_FILE (the CA).
std::map<std::string, std::string> tls_client_environment(const RunTls& tls);

}  // namespace retryproof::scenarios
