// toolwire/transport/retry.h — the pure rules behind HttpClient's retries:
// which statuses are retried, how `retry-after` is read, the backoff delay.
// Kept apart from the event loop so they are unit-tested without sockets.
//
//   if (is_retryable_status(429)) {
//     auto wait = retry_after(head.headers, std::chrono::system_clock::now());
//     Millis d = wait ? *wait : backoff_delay(policy, attempt, rng);
//   }
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <random>

#include "toolwire/transport/http_types.h"

namespace toolwire::transport {

// 408, 409, 429 and every 5xx (Anthropic's 529 included).
bool is_retryable_status(int status);

// The server's own verdict, `x-should-retry: true|false` (sent by OpenAI and
// Anthropic), overrides the status rule when present.
std::optional<bool> should_retry_header(const HttpHeaders& headers);

// The delay the server asks for: `retry-after-ms` (milliseconds, fractional
// allowed), else `retry-after` as delta-seconds or an HTTP date (RFC 9110).
// nullopt when absent or unparsable; a date in the past gives 0.
std::optional<Millis> retry_after(const HttpHeaders& headers,
                                  std::chrono::system_clock::time_point now);

// "Full jitter" exponential backoff: uniform in [0, min(max_backoff,
// initial_backoff * 2^(retry-1))], `retry` counting from 1.
Millis backoff_delay(const RetryPolicy& policy, int retry, std::mt19937_64& rng);

}  // namespace toolwire::transport
