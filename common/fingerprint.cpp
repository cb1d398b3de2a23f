#include "common/fingerprint.hpp"

#include <openssl/evp.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <memory>
#include <stdexcept>

#include "common/json_text.hpp"

namespace retryproof {

namespace {

// JSON has one number type, as the JavaScript original did: 120, 120.0 and 1.2e2 are the
// same amount, so a float with an integral value is written as that integer.
bool is_integral_float(const nlohmann::json& value) {
  if (!value.is_number_float()) return false;
  const double number = value.get<double>();
  return std::trunc(number) == number && std::abs(number) < 9.0e15;  // exact in a double
}

bool has_integral_float(const nlohmann::json& value) {
  if (value.is_structured()) {
    return std::any_of(value.begin(), value.end(),
                       [](const auto& item) { return has_integral_float(item); });
  }
  return is_integral_float(value);
}

void integral_floats_to_integers(nlohmann::json& value) {
  if (value.is_structured()) {
    for (auto& item : value)
      integral_floats_to_integers(item);
  } else if (is_integral_float(value)) {
    value = static_cast<std::int64_t>(value.get<double>());
  }
}

}  // namespace

std::string canonical_json(const nlohmann::json& payload) {
  // nlohmann::json stores objects in a std::map, so dump() already emits keys sorted;
  // no indent means no insignificant white space.
  if (!has_integral_float(payload)) return compact_json(payload);  // the common case: no copy
  nlohmann::json normalised = payload;
  integral_floats_to_integers(normalised);
  return compact_json(normalised);
}

std::string sha256_hex(std::string_view bytes) {
  // Fetched once: EVP_sha256() makes every EVP_DigestInit fetch the implementation again
  // (a lookup under OpenSSL's locks), which cost more than hashing a request's payload.
  // Kept for the life of the process; the context is each thread's, reused.
  static EVP_MD* const kSha256 = EVP_MD_fetch(nullptr, "SHA256", nullptr);
  using Context = std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)>;
  thread_local const Context context(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  if (kSha256 == nullptr || !context || EVP_DigestInit_ex2(context.get(), kSha256, nullptr) != 1 ||
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

}  // namespace retryproof
