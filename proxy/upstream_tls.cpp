#include "proxy/upstream_tls.hpp"

#include <arpa/inet.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <vector>

#include "provider/tls_identity.hpp"

namespace retryproof::proxy {
namespace {

struct X509Free {
  void operator()(X509* certificate) const { X509_free(certificate); }
};
using Certificate = std::unique_ptr<X509, X509Free>;

std::vector<Certificate> certificates_in(const std::string& pem) {
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(
      BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())), BIO_free);
  std::vector<Certificate> found;
  while (bio) {
    Certificate next(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
    if (!next) break;
    found.push_back(std::move(next));
  }
  ERR_clear_error();  // the end of the file reads as an error
  return found;
}

bool is_address(const std::string& host) {
  unsigned char bytes[16];
  return inet_pton(AF_INET, host.c_str(), bytes) == 1 ||
         inet_pton(AF_INET6, host.c_str(), bytes) == 1;
}

// A verify result, in plain words: the ones a person meets in front of a sandbox.
struct VerifyReason {
  long result;
  const char* words;  // "{host}" is the upstream's host
};

constexpr VerifyReason kVerifyReasons[] = {
    {X509_V_ERR_CERT_HAS_EXPIRED, "expired: the upstream must renew it, or this clock is wrong"},
    {X509_V_ERR_CERT_NOT_YET_VALID, "not valid yet: is this machine's clock right?"},
    {X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT, "a self-signed certificate that is not trusted"},
    {X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN, "signed by an unknown CA"},
    {X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY, "signed by an unknown CA"},
    {X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT, "signed by an unknown CA"},
    {X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE, "signed by an unknown CA"},
    {X509_V_ERR_HOSTNAME_MISMATCH, "the certificate is another host's: it does not name {host}"},
    {X509_V_ERR_IP_ADDRESS_MISMATCH, "the certificate is another host's: it does not name {host}"},
};

std::string trusted(const UpstreamTrust& trust) {
  return trust.ca_file.empty() ? "the system's CAs" : "--upstream-ca " + trust.ca_file.string();
}

}  // namespace

UpstreamTrust read_upstream_ca(const std::filesystem::path& file) {
  UpstreamTrust trust{.ca_file = file,
                      .ca_pem = provider::read_tls_file(file, "--upstream-ca file")};
  if (certificates_in(trust.ca_pem).empty()) {
    throw std::runtime_error(
        "the --upstream-ca file " + file.string() +
        " holds no PEM certificate (a block that begins -----BEGIN CERTIFICATE-----)");
  }
  return trust;
}

void configure_upstream_context(SSL_CTX* context, const UpstreamTrust& trust) {
  SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION);
  SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nullptr);
  if (trust.ca_file.empty()) {
    if (SSL_CTX_set_default_verify_paths(context) != 1) {
      ERR_clear_error();
      throw std::runtime_error("cannot load the system's CA certificates");
    }
    return;
  }
  X509_STORE* store = SSL_CTX_get_cert_store(context);
  for (const Certificate& certificate : certificates_in(trust.ca_pem)) {
    X509_STORE_add_cert(store, certificate.get());  // a duplicate is no error worth stopping
  }
  ERR_clear_error();
}

void expect_upstream_host(SSL* connection, const std::string& host) {
  if (is_address(host)) {
    X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(connection), host.c_str());
    return;
  }
  // SSL_set_tlsext_host_name, without the macro's C cast.
  SSL_ctrl(connection, SSL_CTRL_SET_TLSEXT_HOSTNAME, TLSEXT_NAMETYPE_host_name,
           const_cast<char*>(host.c_str()));
  SSL_set1_host(connection, host.c_str());
}

std::string handshake_failure(SSL* connection, const UpstreamTrust& trust, const std::string& host,
                              const std::string& error) {
  const long result = SSL_get_verify_result(connection);
  if (result == X509_V_OK) {
    return "the TLS handshake with the upstream failed: " + error +
           " (does it serve HTTPS on that port?)";
  }
  std::string detail = "the upstream's certificate does not verify against " + trusted(trust) +
                       ": " + X509_verify_cert_error_string(result);
  const auto* reason = std::find_if(std::begin(kVerifyReasons), std::end(kVerifyReasons),
                                    [&](const VerifyReason& row) { return row.result == result; });
  if (reason != std::end(kVerifyReasons)) {
    std::string words = reason->words;
    if (const auto at = words.find("{host}"); at != std::string::npos) {
      words.replace(at, 6, host);
    }
    detail += " (" + words + ")";
  }
  return detail;
}

}  // namespace retryproof::proxy
