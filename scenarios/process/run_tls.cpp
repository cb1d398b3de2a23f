#include "scenarios/process/run_tls.hpp"

#include <openssl/x509.h>

#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>

#include "common/temp_dir.hpp"

namespace retryproof::scenarios {
namespace {

// The certificates OpenSSL trusts when nothing says otherwise: $SSL_CERT_FILE, else its
// default file (on Debian, /etc/ssl/certs/ca-certificates.crt). Empty if unreadable.
std::string system_certificates() {
  const char* from_environment = std::getenv(X509_get_default_cert_file_env());
  const std::string file = from_environment != nullptr && *from_environment != '\0'
                               ? from_environment
                               : X509_get_default_cert_file();
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  if (in) text << in.rdbuf();
  return text.str();
}

struct Made {
  Made() : generated(provider::generate_tls_identity()), directory("retryproof-run-tls") {
    tls.identity = generated.identity;
    tls.ca_file = directory.write("ca.pem", generated.ca_certificate_pem);
    std::string bundle = generated.ca_certificate_pem;
    const std::string system = system_certificates();
    if (!system.empty()) bundle += "\n" + system;
    tls.bundle_file = directory.write("bundle.pem", bundle);
  }

  provider::GeneratedTls generated;
  TempDir directory;
  RunTls tls;
};

}  // namespace

const RunTls& run_tls() {
  static const Made made;
  return made.tls;
}

std::map<std::string, std::string> tls_client_environment(const RunTls& tls) {
  const std::string ca = tls.ca_file.string();
  const std::string bundle = tls.bundle_file.string();
  return {{"SSL_CERT_FILE", bundle},
          {"REQUESTS_CA_BUNDLE", bundle},
          {"CURL_CA_BUNDLE", bundle},
          {"NODE_EXTRA_CA_CERTS", ca},
          {"RETRYPROOF_CA_FILE", ca}};
}

}  // namespace retryproof::scenarios
