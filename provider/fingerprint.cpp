#include "fingerprint.hpp"

#include <openssl/evp.h>

#include <array>
#include <memory>
#include <stdexcept>

namespace retryproof::provider {

std::string canonical_json(const nlohmann::json& payload) {
  // nlohmann::json stores objects in a std::map, so dump() already emits keys sorted;
  // no indent means no insignificant white space.
  return payload.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string sha256_hex(std::string_view bytes) {
  using Context = std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)>;
  Context context(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  if (!context || EVP_DigestInit_ex(context.get(), EVP_sha256(), nullptr) != 1 ||
      EVP_DigestUpdate(context.get(), bytes.data(), bytes.size()) != 1 ||
      EVP_DigestFinal_ex(context.get(), digest.data(), &length) != 1) {
    throw std::runtime_error("OpenSSL could not compute SHA-256");
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(length * 2);
  for (unsigned int i = 0; i < length; ++i) {
    hex.push_back(kHex[digest[i] >> 4]);
    hex.push_back(kHex[digest[i] & 0x0f]);
  }
  return hex;
}

std::string fingerprint(const nlohmann::json& payload) {
  return sha256_hex(canonical_json(payload));
}

}  // namespace retryproof::provider
