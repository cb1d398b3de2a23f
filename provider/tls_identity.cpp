#include "provider/tls_identity.hpp"

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>

namespace retryproof::provider {
namespace {

struct BioFree {
  void operator()(BIO* bio) const { BIO_free(bio); }
};
struct X509Free {
  void operator()(X509* certificate) const { X509_free(certificate); }
};
struct KeyFree {
  void operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); }
};
using Bio = std::unique_ptr<BIO, BioFree>;
using Certificate = std::unique_ptr<X509, X509Free>;
using Key = std::unique_ptr<EVP_PKEY, KeyFree>;

// OpenSSL's reason for the last failure, and an empty error queue.
std::string openssl_reason() {
  std::string reason;
  while (const unsigned long code = ERR_get_error()) {
    char text[256];
    ERR_error_string_n(code, text, sizeof text);
    reason = text;  // the last one is the most specific
  }
  return reason.empty() ? "unknown OpenSSL error" : reason;
}

Bio memory_bio(const std::string& text) {
  return Bio(BIO_new_mem_buf(text.data(), static_cast<int>(text.size())));
}

// Never asks for a passphrase (OpenSSL would read one from the terminal).
int no_passphrase(char*, int, int, void*) {
  return -1;
}

std::string to_pem(X509* certificate) {
  Bio bio(BIO_new(BIO_s_mem()));
  if (!bio || PEM_write_bio_X509(bio.get(), certificate) != 1) {
    throw std::runtime_error("cannot write a certificate: " + openssl_reason());
  }
  char* data = nullptr;
  const long size = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<std::size_t>(size));
}

std::string to_pem(EVP_PKEY* key) {
  Bio bio(BIO_new(BIO_s_mem()));
  if (!bio ||
      PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr) != 1) {
    throw std::runtime_error("cannot write a private key: " + openssl_reason());
  }
  char* data = nullptr;
  const long size = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<std::size_t>(size));
}

void check(bool ok, const char* what) {
  if (!ok)
    throw std::runtime_error(std::string("cannot generate the TLS certificate (") + what +
                             "): " + openssl_reason());
}

Key p256_key() {
  Key key(EVP_EC_gen("P-256"));
  check(key != nullptr, "key");
  return key;
}

void add_extension(X509* subject, X509* issuer, int nid, const char* value) {
  X509V3_CTX context;
  X509V3_set_ctx(&context, issuer, subject, nullptr, nullptr, 0);
  X509_EXTENSION* extension = X509V3_EXT_conf_nid(nullptr, &context, nid, value);
  check(extension != nullptr, value);
  const int added = X509_add_ext(subject, extension, -1);
  X509_EXTENSION_free(extension);
  check(added == 1, value);
}

// A certificate for `subject_key` named `common_name`, valid from an hour ago (clocks
// differ) for 30 days, with a random serial; signed later.
Certificate new_certificate(EVP_PKEY* subject_key, const char* common_name) {
  Certificate certificate(X509_new());
  check(certificate != nullptr, "certificate");
  X509* x = certificate.get();
  check(X509_set_version(x, 2) == 1, "version");  // v3: extensions
  std::unique_ptr<BIGNUM, decltype(&BN_free)> serial(BN_new(), BN_free);
  check(serial && BN_rand(serial.get(), 127, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY) == 1, "serial");
  check(BN_to_ASN1_INTEGER(serial.get(), X509_get_serialNumber(x)) != nullptr, "serial");
  check(X509_gmtime_adj(X509_getm_notBefore(x), -3600) != nullptr, "validity");
  check(X509_gmtime_adj(X509_getm_notAfter(x), 30L * 24 * 3600) != nullptr, "validity");
  check(X509_set_pubkey(x, subject_key) == 1, "public key");
  X509_NAME* name = X509_get_subject_name(x);
  check(X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC,
                                   reinterpret_cast<const unsigned char*>("retryproof"), -1, -1,
                                   0) == 1,
        "name");
  check(X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                                   reinterpret_cast<const unsigned char*>(common_name), -1, -1,
                                   0) == 1,
        "name");
  return certificate;
}

}  // namespace

std::string read_tls_file(const std::filesystem::path& path, const std::string& what) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) {
    throw std::runtime_error("the " + what + " " + path.string() + " is a directory, not a file");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw std::runtime_error("cannot read the " + what + " " + path.string() + ": " +
                             std::generic_category().message(errno));
  }
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TlsIdentity load_tls_identity(const std::filesystem::path& certificate,
                              const std::filesystem::path& key) {
  ERR_clear_error();
  TlsIdentity identity{read_tls_file(certificate, "certificate file"),
                       read_tls_file(key, "private key file")};

  Bio certificate_bio = memory_bio(identity.certificate_chain_pem);
  Certificate leaf(PEM_read_bio_X509(certificate_bio.get(), nullptr, no_passphrase, nullptr));
  if (!leaf) {
    const bool is_key =
        identity.certificate_chain_pem.find("PRIVATE KEY-----") != std::string::npos;
    throw std::runtime_error(
        "the certificate file " + certificate.string() +
        (is_key ? " holds a private key, not a certificate (are the certificate and key files "
                  "swapped?)"
                : " holds no PEM certificate (a block that begins -----BEGIN CERTIFICATE-----): " +
                      openssl_reason()));
  }
  ERR_clear_error();

  Bio key_bio = memory_bio(identity.private_key_pem);
  Key private_key(PEM_read_bio_PrivateKey(key_bio.get(), nullptr, no_passphrase, nullptr));
  if (!private_key) {
    const std::string& text = identity.private_key_pem;
    std::string problem;
    if (text.find("ENCRYPTED") != std::string::npos) {
      problem = " is encrypted; give an unencrypted key (openssl pkey -in KEY -out PLAIN)";
    } else if (text.find("-----BEGIN CERTIFICATE-----") != std::string::npos &&
               text.find("PRIVATE KEY-----") == std::string::npos) {
      problem =
          " holds a certificate, not a private key (are the certificate and key files "
          "swapped?)";
    } else {
      problem = " holds no PEM private key (a block that begins -----BEGIN PRIVATE KEY-----): " +
                openssl_reason();
    }
    throw std::runtime_error("the private key file " + key.string() + problem);
  }
  if (X509_check_private_key(leaf.get(), private_key.get()) != 1) {
    ERR_clear_error();
    throw std::runtime_error("the private key in " + key.string() +
                             " is not the key of the certificate in " + certificate.string());
  }
  return identity;
}

GeneratedTls generate_tls_identity() {
  ERR_clear_error();
  const Key ca_key = p256_key();
  const Certificate ca = new_certificate(ca_key.get(), "retryproof test CA");
  check(X509_set_issuer_name(ca.get(), X509_get_subject_name(ca.get())) == 1, "issuer");
  add_extension(ca.get(), ca.get(), NID_basic_constraints, "critical,CA:TRUE,pathlen:0");
  add_extension(ca.get(), ca.get(), NID_key_usage, "critical,keyCertSign,cRLSign");
  add_extension(ca.get(), ca.get(), NID_subject_key_identifier, "hash");
  add_extension(ca.get(), ca.get(), NID_authority_key_identifier, "keyid:always");
  check(X509_sign(ca.get(), ca_key.get(), EVP_sha256()) > 0, "CA signature");

  const Key leaf_key = p256_key();
  const Certificate leaf = new_certificate(leaf_key.get(), "localhost");
  check(X509_set_issuer_name(leaf.get(), X509_get_subject_name(ca.get())) == 1, "issuer");
  add_extension(leaf.get(), ca.get(), NID_basic_constraints, "critical,CA:FALSE");
  add_extension(leaf.get(), ca.get(), NID_key_usage, "critical,digitalSignature");
  add_extension(leaf.get(), ca.get(), NID_ext_key_usage, "serverAuth");
  add_extension(leaf.get(), ca.get(), NID_subject_alt_name, "DNS:localhost,IP:127.0.0.1,IP:::1");
  add_extension(leaf.get(), ca.get(), NID_subject_key_identifier, "hash");
  add_extension(leaf.get(), ca.get(), NID_authority_key_identifier, "keyid:always");
  check(X509_sign(leaf.get(), ca_key.get(), EVP_sha256()) > 0, "signature");

  return {{to_pem(leaf.get()), to_pem(leaf_key.get())}, to_pem(ca.get())};
}

}  // namespace retryproof::provider
