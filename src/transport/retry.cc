// Retry rules: which responses are retried and after how long.
#include "toolwire/transport/retry.h"

#include "toolwire/libcurl/api.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string>

namespace toolwire::transport {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// Non-negative decimal, optionally fractional ("1.5"); nullopt otherwise.
std::optional<double> parse_number(std::string_view s) {
  s = trim(s);
  if (s.empty() || s.size() > 32) return std::nullopt;
  bool dot = false;
  for (char c : s) {
    if (c == '.' && !dot) {
      dot = true;
      continue;
    }
    if (c < '0' || c > '9') return std::nullopt;
  }
  double v = std::strtod(std::string(s).c_str(), nullptr);
  if (!std::isfinite(v) || v < 0) return std::nullopt;
  return v;
}

Millis clamp_ms(double ms) {
  // Huge values are capped well above any sane max_retry_after.
  return Millis(static_cast<int64_t>(std::min(ms, 1e12)));
}

}  // namespace

bool is_retryable_status(int status) {
  return status == 408 || status == 409 || status == 429 || (status >= 500 && status <= 599);
}

std::optional<bool> should_retry_header(const HttpHeaders& headers) {
  auto v = headers.get("x-should-retry");
  if (!v) return std::nullopt;
  std::string_view t = trim(*v);
  if (iequals(t, "true")) return true;
  if (iequals(t, "false")) return false;
  return std::nullopt;
}

std::optional<Millis> retry_after(const HttpHeaders& headers,
                                  std::chrono::system_clock::time_point now) {
  if (auto ms = headers.get("retry-after-ms")) {
    if (auto v = parse_number(*ms)) return clamp_ms(*v);
  }
  auto ra = headers.get("retry-after");
  if (!ra) return std::nullopt;
  if (auto secs = parse_number(*ra)) return clamp_ms(*secs * 1000.0);
  std::string date(trim(*ra));
  if (date.empty() || date.size() > 64) return std::nullopt;
  time_t when = libcurl::getdate(date.c_str(), nullptr);
  if (when == -1) return std::nullopt;
  auto delta = std::chrono::system_clock::from_time_t(when) - now;
  return std::max(Millis(0), std::chrono::duration_cast<Millis>(delta));
}

Millis backoff_delay(const RetryPolicy& policy, int retry, std::mt19937_64& rng) {
  double cap = static_cast<double>(policy.initial_backoff.count());
  for (int i = 1; i < retry && cap < static_cast<double>(policy.max_backoff.count()); ++i) cap *= 2;
  cap = std::min(cap, static_cast<double>(policy.max_backoff.count()));
  if (cap <= 0) return Millis(0);
  std::uniform_int_distribution<int64_t> dist(0, static_cast<int64_t>(cap));
  return Millis(dist(rng));
}

}  // namespace toolwire::transport
