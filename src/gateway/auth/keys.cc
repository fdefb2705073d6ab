#include <openssl/crypto.h>
#include <openssl/evp.h>

#include <algorithm>
#include <array>

#include "toolwire/gateway/auth.h"
#include "toolwire/gateway/routing.h"

namespace toolwire::gateway {
namespace {

std::array<unsigned char, 32> digest(std::string_view text) {
  std::array<unsigned char, 32> out{};
  unsigned int n = 0;
  EVP_Digest(text.data(), text.size(), out.data(), &n, EVP_sha256(), nullptr);
  return out;
}

bool parse_hex(std::string_view hex, std::array<unsigned char, 32>& out) {
  if (hex.size() != 64) return false;
  auto val = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  for (size_t i = 0; i < 32; ++i) {
    int hi = val(hex[2 * i]), lo = val(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return false;
    out[i] = static_cast<unsigned char>(hi * 16 + lo);
  }
  return true;
}

}  // namespace

std::string sha256_hex(std::string_view text) {
  static const char* digits = "0123456789abcdef";
  auto d = digest(text);
  std::string out;
  for (unsigned char c : d) {
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out;
}

GatewayKey::GatewayKey(KeyConfig c)
    : c_(std::move(c)),
      shared_id_(sha256_hex("toolwire-key:" + c_.sha256_hex).substr(0, 32)),
      tokens_(c_.requests_per_minute) {}

bool GatewayKey::allows_model(std::string_view model) const {
  if (c_.models.empty()) return true;
  return std::any_of(c_.models.begin(), c_.models.end(),
                     [&](const std::string& g) { return glob_match(g, model); });
}

// A token bucket of requests_per_minute tokens, refilled continuously.
std::optional<int> GatewayKey::take_request(std::chrono::steady_clock::time_point now) {
  if (c_.requests_per_minute <= 0) return std::nullopt;
  std::lock_guard lock(mu_);
  double rate = c_.requests_per_minute / 60.0;  // tokens per second
  if (refilled_ != std::chrono::steady_clock::time_point{}) {
    double secs = std::chrono::duration<double>(now - refilled_).count();
    tokens_ = std::min<double>(c_.requests_per_minute, tokens_ + secs * rate);
  }
  refilled_ = now;
  if (tokens_ >= 1) {
    tokens_ -= 1;
    return std::nullopt;
  }
  return std::max(1, static_cast<int>((1 - tokens_) / rate + 0.999));
}

bool GatewayKey::open_stream() {
  if (c_.max_concurrent_streams <= 0) {
    streams_.fetch_add(1);
    return true;
  }
  int n = streams_.fetch_add(1);
  if (n < c_.max_concurrent_streams) return true;
  streams_.fetch_sub(1);
  return false;
}

void GatewayKey::close_stream() { streams_.fetch_sub(1); }

Status KeyRing::add(KeyConfig c) {
  std::string hex = c.sha256_hex;
  if (hex.starts_with("sha256:")) hex = hex.substr(7);
  std::array<unsigned char, 32> h{};
  if (!parse_hex(hex, h))
    return make_error(
        ErrorCode::invalid_argument,
        "key '" + c.name + "': expected sha256:<64 hex digits> (toolwire serve --hash-key)");
  c.sha256_hex = hex;
  keys_.push_back(std::make_unique<GatewayKey>(std::move(c)));
  hashes_.push_back(h);
  return Status::Ok();
}

GatewayKey* KeyRing::authenticate(std::string_view presented) const {
  if (presented.empty()) return nullptr;
  auto d = digest(presented);
  GatewayKey* found = nullptr;
  // Every hash is compared, in constant time each: the answer's timing says
  // nothing about which key (if any) was close.
  for (size_t i = 0; i < hashes_.size(); ++i)
    if (CRYPTO_memcmp(d.data(), hashes_[i].data(), d.size()) == 0) found = keys_[i].get();
  return found;
}

}  // namespace toolwire::gateway
