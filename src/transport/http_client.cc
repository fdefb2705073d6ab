// HttpClient: the public face of the event loop, plus blocking fetch().
#include "toolwire/transport/http_client.h"

#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "event_loop.h"

namespace toolwire::transport {

namespace {

void global_init_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (libcurl::global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
      std::fprintf(stderr, "toolwire: curl_global_init failed\n");
      std::abort();
    }
  });
}

}  // namespace

void HttpCall::cancel() const {
  if (custom_cancel_) {
    if (*custom_cancel_) (*custom_cancel_)();
    return;
  }
  if (auto loop = loop_.lock()) loop->cancel(id_);
}

void HttpCall::set_paused(bool paused) const {
  if (custom_pause_) {
    if (*custom_pause_) (*custom_pause_)(paused);
    return;
  }
  if (custom_cancel_) return;  // another transport without flow control
  if (pause_wanted_) pause_wanted_->store(paused, std::memory_order_release);
  if (auto loop = loop_.lock()) loop->pause(id_, paused);
}

HttpClient::HttpClient(HttpClientOptions options) {
  global_init_once();
  loop_ = std::make_shared<detail::EventLoop>(std::move(options));
  Status s = loop_->start_thread();
  if (!s.ok()) {
    // Without epoll/eventfd nothing works; this is a broken host, not input.
    std::fprintf(stderr, "toolwire: %s\n", s.error().message.c_str());
    std::abort();
  }
}

HttpClient::~HttpClient() { loop_->stop(); }

HttpCall HttpClient::start(HttpRequest request, HttpCallbacks callbacks) {
  auto pause_wanted = std::make_shared<std::atomic<bool>>(false);
  uint64_t id = loop_->submit(std::move(request), std::move(callbacks), pause_wanted);
  return HttpCall(loop_, id, std::move(pause_wanted));
}

size_t HttpClient::active_calls() const { return loop_->active(); }

std::thread::id HttpClient::loop_thread_id() const { return loop_->thread_id(); }

Result<HttpResult> HttpClient::fetch(HttpRequest request, size_t max_body) {
  if (std::this_thread::get_id() == loop_->thread_id()) {
    return make_error(ErrorCode::failed_precondition,
                      "HttpClient::fetch called on the client's loop thread");
  }
  struct State {
    std::mutex mu;
    std::condition_variable cv;
    bool done = false;
    bool too_big = false;
    Status status;
    HttpResult result;
  };
  auto state = std::make_shared<State>();
  HttpCallbacks cb;
  cb.on_head = [state](const HttpResponseHead& head) {
    state->result.status = head.status;
    state->result.headers = head.headers;
    return true;
  };
  cb.on_body = [state, max_body](std::string_view bytes) {
    if (state->result.body.size() + bytes.size() > max_body) {
      state->too_big = true;
      return false;
    }
    state->result.body.append(bytes);
    return true;
  };
  cb.on_complete = [state](const Status& status, const HttpStats& stats) {
    {
      std::lock_guard<std::mutex> lock(state->mu);
      state->status = status;
      state->result.stats = stats;
      state->done = true;
    }
    state->cv.notify_all();  // outside the lock: the waiter does not wake into a held mutex
  };
  start(std::move(request), std::move(cb));
  std::unique_lock<std::mutex> lock(state->mu);
  state->cv.wait(lock, [&] { return state->done; });
  if (state->too_big) {
    return make_error(ErrorCode::resource_exhausted,
                      "response body larger than " + std::to_string(max_body) + " bytes");
  }
  if (!state->status.ok()) return state->status.error();
  return std::move(state->result);
}

}  // namespace toolwire::transport
