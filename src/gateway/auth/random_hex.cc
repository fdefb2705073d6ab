#include "gateway/auth/random_hex.h"

#include <openssl/rand.h>

#include <cstdlib>
#include <vector>

namespace toolwire::gateway {

std::optional<std::string> random_hex(size_t bytes) {
  std::vector<unsigned char> raw(bytes);
  if (RAND_bytes(raw.data(), static_cast<int>(bytes)) != 1) return std::nullopt;
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * bytes);
  for (unsigned char c : raw) {
    out.push_back(kHex[c >> 4]);
    out.push_back(kHex[c & 15]);
  }
  return out;
}

std::string secret_hex(size_t bytes) {
  std::optional<std::string> hex = random_hex(bytes);
  if (!hex) std::abort();
  return *std::move(hex);
}

}  // namespace toolwire::gateway
