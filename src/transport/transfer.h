// One call's state on the loop thread: its request, callbacks, libcurl easy
// handle and the per-attempt parse state. Only the loop thread touches it.
#pragma once

#include "toolwire/libcurl/api.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "toolwire/transport/http_client.h"
#include "toolwire/transport/http_types.h"

namespace toolwire::transport::detail {

using Clock = std::chrono::steady_clock;

class EventLoop;

struct Transfer {
  enum class Abort { none, retry, callback };

  Transfer(uint64_t id_, HttpRequest req_, HttpCallbacks cb_)
      : id(id_), req(std::move(req_)), cb(std::move(cb_)) {}
  ~Transfer();
  Transfer(const Transfer&) = delete;
  Transfer& operator=(const Transfer&) = delete;

  uint64_t id;
  HttpRequest req;
  HttpCallbacks cb;
  EventLoop* loop = nullptr;

  CURL* easy = nullptr;
  curl_slist* header_list = nullptr;
  char errbuf[CURL_ERROR_SIZE] = {};

  Clock::time_point started{};
  Clock::time_point deadline_at = Clock::time_point::max();
  Clock::time_point last_activity{};
  Clock::time_point retry_wait_started{};

  bool in_multi = false;
  bool waiting_retry = false;
  bool paused = false;  // HttpCall::set_paused: CURLPAUSE_RECV, no idle timeout
  // HttpCall::set_paused's wish, set on any thread: the body callback pauses
  // the transfer itself (CURL_WRITEFUNC_PAUSE) when it sees it, so that a
  // fast upstream stops at the next chunk.
  std::shared_ptr<std::atomic<bool>> pause_wanted;
  bool committed = false;  // on_head ran: from now on nothing is retried
  bool first_byte = false;
  uint64_t attempt_gen = 0;  // invalidates timers of earlier attempts

  // Per attempt.
  HttpResponseHead head;
  Abort abort = Abort::none;
  Millis retry_delay{0};

  HttpStats stats;
};

// Creates and configures the easy handle (callbacks, method, headers, body,
// proxy, TLS). invalid_argument for a malformed method or header.
Status setup_easy(Transfer& t, const HttpClientOptions& options);

// True for libcurl failures that happen before a response could be used and
// are worth another attempt (refused, reset, DNS, TLS handshake, nothing).
bool is_retryable_curl_error(CURLcode code);

// The canonical error for a failed attempt, its message free of secrets.
Error transfer_error(const Transfer& t, CURLcode code);

// "POST http://host:port/path" with the URL redacted.
std::string describe(const HttpRequest& req);

}  // namespace toolwire::transport::detail
