// toolwire/transport/http_types.h — the values an upstream HTTP exchange is
// described with: request, retry policy, response head, statistics, result.
//
// These are plain data; the behaviour lives in HttpClient (http_client.h).
//
//   HttpRequest req;
//   req.method = "POST";
//   req.url = "https://api.example.com/v1/chat/completions";
//   req.headers.add("authorization", "Bearer " + key);   // never logged
//   req.headers.add("content-type", "application/json");
//   req.body = json;
//   req.deadline = std::chrono::seconds(120);     // whole exchange, retries included
//   req.idle_timeout = std::chrono::seconds(30);  // no byte received for this long
//   req.retry.max_attempts = 4;
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "toolwire/core/result.h"

namespace toolwire::transport {

using Millis = std::chrono::milliseconds;

// An ordered header list with case-insensitive lookup (HTTP field names are
// case-insensitive; values are kept byte for byte).
class HttpHeaders {
 public:
  using Entry = std::pair<std::string, std::string>;

  void add(std::string name, std::string value) {
    entries_.emplace_back(std::move(name), std::move(value));
  }
  // Replaces every field called `name` by one with `value`.
  void set(std::string_view name, std::string value);
  void remove(std::string_view name);
  // The first value of `name`, if present.
  std::optional<std::string_view> get(std::string_view name) const;
  bool contains(std::string_view name) const { return get(name).has_value(); }

  const std::vector<Entry>& entries() const { return entries_; }
  size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  void clear() { entries_.clear(); }
  auto begin() const { return entries_.begin(); }
  auto end() const { return entries_.end(); }

 private:
  std::vector<Entry> entries_;
};

bool iequals(std::string_view a, std::string_view b);

// When a failed attempt is tried again. Retried: connection failures (refused,
// reset, DNS, TLS handshake, nothing received) and the statuses 408, 409, 429,
// 5xx (529 `overloaded_error` included) — but only while the caller has seen
// nothing of the response: once on_head ran, a failure is reported, never
// retried, so a streamed tool call can never arrive twice.
struct RetryPolicy {
  int max_attempts = 3;         // attempts in all, the first included; 1 = no retry
  Millis initial_backoff{500};  // the cap of the first retry's random delay
  Millis max_backoff{8000};     // the cap grows x2 per attempt up to this
  Millis max_retry_after{
      60000};  // a longer retry-after is not waited for: the response is returned
  bool honor_retry_after = true;  // use `retry-after-ms` / `retry-after` when present
};

struct HttpRequest {
  std::string method = "GET";
  std::string url;
  HttpHeaders headers;
  std::string body;
  Millis deadline{0};  // total time for the exchange, retries and their delays included; 0 = none
  Millis idle_timeout{
      0};  // fail when no byte arrives for this long (waiting for the head included); 0 = none
  Millis connect_timeout{10000};
  RetryPolicy retry;
};

struct HttpResponseHead {
  int status = 0;
  HttpHeaders headers;
  std::string http_version;  // "HTTP/1.1", "HTTP/2"
};

struct HttpStats {
  int attempts = 0;                           // attempts started (1 when no retry happened)
  int last_status = 0;                        // status of the last response received, 0 if none
  std::chrono::microseconds time_to_head{0};  // from start() to the delivered head
  std::chrono::microseconds time_to_first_byte{
      0};                                   // from start() to the first body byte handed over
  std::chrono::microseconds total_time{0};  // from start() to completion
  uint64_t body_bytes = 0;                  // body bytes handed to on_body
  Millis retry_wait{0};                     // time spent waiting between attempts
};

// What the blocking HttpClient::fetch returns. A non-2xx status is a result,
// not an error: the caller (a provider) translates the error body.
struct HttpResult {
  int status = 0;
  HttpHeaders headers;
  std::string body;
  HttpStats stats;
};

// Callbacks run on the client's loop thread: they must not block. Any of them
// may be empty.
struct HttpCallbacks {
  // The final response's status and headers (retried attempts are never
  // shown). Return false to abort the call (on_complete gets `cancelled`).
  std::function<bool(const HttpResponseHead&)> on_head;
  // Body bytes as they arrive, in any chunking. Return false to abort.
  std::function<bool(std::string_view)> on_body;
  // Exactly once per call. OK when the response arrived whole (whatever its
  // status); else deadline_exceeded (deadline or idle timeout), cancelled,
  // unavailable (connection failures, a stream cut short), invalid_argument
  // (bad URL). Messages never contain header values or URL credentials/query.
  std::function<void(const Status&, const HttpStats&)> on_complete;
};

// A whole answer's body, gathered by on_body up to a bound: past it, the
// transfer stops and `too_big` says why.
struct BoundedBody {
  std::string text;
  bool too_big = false;
  // on_body's work: false (abort) once `bytes` would pass `max` in all.
  bool append(std::string_view bytes, size_t max) {
    if (text.size() + bytes.size() > max) {
      too_big = true;
      return false;
    }
    text.append(bytes);
    return true;
  }
};

}  // namespace toolwire::transport
