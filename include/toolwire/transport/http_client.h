// toolwire/transport/http_client.h — the asynchronous HTTP client toolwire
// uses to talk to upstream model APIs.
//
// One HttpClient owns ONE event-loop thread: libcurl's multi interface driven
// by epoll (curl_multi_socket_action), so thousands of concurrent transfers
// share that thread and one connection cache (keep-alive on HTTP/1.1,
// multiplexing on HTTP/2). There is no thread per request; retry delays,
// deadlines and idle timeouts are timers on the loop. (libcurl resolves host
// names on short-lived resolver threads, one per lookup, and caches the
// answers for 60 s; numeric addresses need none.)
//
// Security and network environment: TLS peers are verified against the system
// CA store (libcurl's default; HttpClientOptions::ca_file overrides the file).
// Proxies come from the environment as libcurl reads them for each transfer:
// `https_proxy`/`HTTPS_PROXY` for https URLs, `http_proxy` (lower case only)
// for http URLs, `all_proxy`, and `no_proxy`/`NO_PROXY` exceptions; an
// explicit HttpClientOptions::proxy replaces them. Nothing is logged, and
// error messages never carry header values (keys) or URL credentials/queries.
//
//   HttpClient client;
//   HttpRequest req;
//   req.method = "POST";
//   req.url = base + "/v1/messages";
//   req.headers.add("x-api-key", key);
//   req.body = body;
//   req.idle_timeout = std::chrono::seconds(60);
//   HttpCall call = client.start(std::move(req), {
//       .on_head = [](const HttpResponseHead& h) { return h.status == 200; },
//       .on_body = [&](std::string_view bytes) { return decoder.feed(bytes).ok(); },
//       .on_complete = [&](const Status& s, const HttpStats& st) { done(s); },
//   });
//   ...
//   call.cancel();   // from any thread; on_complete then reports `cancelled`
//
//   // Simple uses: a blocking call (never from inside a callback).
//   Result<HttpResult> r = client.fetch(std::move(req));
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "toolwire/core/result.h"
#include "toolwire/transport/http_types.h"

namespace toolwire::transport {

namespace detail {
class EventLoop;
}

struct HttpClientOptions {
  std::string proxy;    // "" = from the environment (see above); "http://h:p" forces one
  std::string ca_file;  // "" = system CA store
  std::string user_agent = "toolwire/0.1";
  long max_connections = 0;       // cap of the shared connection cache; 0 = libcurl's default
  long max_host_connections = 0;  // per host; 0 = unlimited
  long receive_buffer = 16384;    // per-transfer receive buffer (libcurl CURLOPT_BUFFERSIZE)
  uint64_t jitter_seed = 0;       // 0 = random; fixed for reproducible backoff in tests
};

// A started call. Copyable; cancel() is safe from any thread, any number of
// times, before or after completion, and after the client is gone.
class HttpCall {
 public:
  HttpCall() = default;
  // For other transports: `cancel` must follow the same rules.
  HttpCall(std::shared_ptr<const std::function<void()>> cancel, uint64_t id,
           std::shared_ptr<const std::function<void(bool)>> pause = nullptr)
      : custom_cancel_(std::move(cancel)), custom_pause_(std::move(pause)), id_(id) {}
  void cancel() const;
  // Flow control: while paused the transport stops reading the response
  // body (the bytes wait in the kernel's buffers and the upstream's, and
  // TCP's window stops the sender), and its idle timeout does not run.
  // Any thread, any number of times; a no-op once the call has completed.
  void set_paused(bool paused) const;
  uint64_t id() const { return id_; }
  bool valid() const { return id_ != 0; }

 private:
  friend class HttpClient;
  HttpCall(std::weak_ptr<detail::EventLoop> loop, uint64_t id,
           std::shared_ptr<std::atomic<bool>> pause_wanted)
      : loop_(std::move(loop)), pause_wanted_(std::move(pause_wanted)), id_(id) {}
  std::weak_ptr<detail::EventLoop> loop_;
  // Read by the loop thread inside its body callback: a pause takes effect
  // at the next chunk, not once the loop is back from libcurl (which may
  // deliver megabytes from a fast upstream in one call).
  std::shared_ptr<std::atomic<bool>> pause_wanted_;
  std::shared_ptr<const std::function<void()>> custom_cancel_;
  std::shared_ptr<const std::function<void(bool)>> custom_pause_;
  uint64_t id_ = 0;
};

// What a provider needs of a transport: start a call, get callbacks. Two
// implementations: HttpClient (libcurl on its own loop thread; HTTP/2,
// proxies) and AsioHttpClient (asio_client.h: HTTP/1.1 on the caller's
// io_context — the gateway's — with no thread of its own).
class HttpTransport {
 public:
  virtual ~HttpTransport() = default;
  virtual HttpCall start(HttpRequest request, HttpCallbacks callbacks) = 0;
};

class HttpClient final : public HttpTransport {
 public:
  explicit HttpClient(HttpClientOptions options = {});
  // Cancels what is still running (each on_complete runs with `cancelled`)
  // and joins the loop thread. Must not be called from a callback.
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // Starts a call; the callbacks run later on the loop thread. Safe from any
  // thread, callbacks included.
  HttpCall start(HttpRequest request, HttpCallbacks callbacks) override;

  // Blocking convenience on top of start(): the whole body in memory (at most
  // max_body bytes, else resource_exhausted). Fails with failed_precondition
  // when called on the loop thread.
  Result<HttpResult> fetch(HttpRequest request, size_t max_body = 64u << 20);

  // Calls started and not yet completed.
  size_t active_calls() const;
  std::thread::id loop_thread_id() const;

 private:
  std::shared_ptr<detail::EventLoop> loop_;
};

}  // namespace toolwire::transport
