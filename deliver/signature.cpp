#include "deliver/signature.hpp"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <stdexcept>

namespace retryproof::deliver {

std::string hmac_sha256_hex(std::string_view secret, std::string_view body) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  const auto* data = reinterpret_cast<const unsigned char*>(body.data());
  if (HMAC(EVP_sha256(), secret.data(), static_cast<int>(secret.size()), data, body.size(), digest,
           &length) == nullptr) {
    throw std::runtime_error("OpenSSL could not compute an HMAC-SHA256");
  }
  constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned int i = 0; i < length; ++i) {
    hex.push_back(kHex[digest[i] >> 4]);
    hex.push_back(kHex[digest[i] & 0x0f]);
  }
  return hex;
}

std::string signature_header(std::string_view secret, std::string_view body) {
  return "sha256=" + hmac_sha256_hex(secret, body);
}

}  // namespace retryproof::deliver
