// AsioHttpClient: one Call per request, a state machine run one handler at a
// time (on a strand, or on a one-thread io_context's executor): connection
// (pooled, or resolve → connect → TLS handshake) → write → head → body reads,
// with the retry rules of retry.h before the head is shown, and three timers
// (deadline, idle/connect, backoff).
#include "toolwire/transport/asio_client.h"

#include <array>
#include <atomic>
#include <boost/asio/bind_executor.hpp>
#include <boost/asio/connect.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/host_name_verification.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/http/buffer_body.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <cstdint>
#include <limits>
#include <random>
#include <typeinfo>

#include "toolwire/transport/retry.h"
#include "toolwire/transport/timer_wheel.h"
#include "transport/asio/call_site.h"
#include "transport/asio/connection.h"
#include "transport/asio/url.h"

namespace toolwire::transport {

using namespace asio_detail;
namespace bhttp = boost::beast::http;
using boost::system::error_code;
using std::chrono::duration_cast;
using std::chrono::microseconds;

class AsioCall;

namespace {
thread_local boost::asio::any_io_executor t_strand;
}  // namespace

StrandScope::StrandScope(boost::asio::any_io_executor strand) : previous_(std::move(t_strand)) {
  t_strand = std::move(strand);
}
StrandScope::~StrandScope() { t_strand = std::move(previous_); }

struct AsioHttpClient::Impl {
  Impl(asio::io_context& ioc, AsioClientOptions o)
      : ioc(ioc),
        opt(std::move(o)),
        pool(opt.max_idle_per_host, opt.idle_keep),
        rng(opt.jitter_seed ? opt.jitter_seed : std::random_device{}()) {}

  asio::ssl::context* tls() {
    std::call_once(tls_once, [&] {
      tls_ctx.emplace(asio::ssl::context::tls_client);
      tls_ctx->set_verify_mode(asio::ssl::verify_peer);
      error_code ec;
      if (opt.ca_file.empty())
        tls_ctx->set_default_verify_paths(ec);
      else
        tls_ctx->load_verify_file(opt.ca_file, ec);
    });
    return &*tls_ctx;
  }

  Millis backoff(const RetryPolicy& p, int retry) {
    std::lock_guard lock(rng_mu);
    return backoff_delay(p, retry, rng);
  }

  asio::io_context& ioc;
  AsioClientOptions opt;
  ConnectionPool pool;
  std::once_flag tls_once;
  std::optional<asio::ssl::context> tls_ctx;
  std::mutex rng_mu;
  std::mt19937_64 rng;
  std::mutex mu;
  std::unordered_map<uint64_t, std::weak_ptr<AsioCall>> active;
  std::atomic<uint64_t> next_id{1};
};

class AsioCall : public std::enable_shared_from_this<AsioCall> {
 public:
  AsioCall(std::shared_ptr<AsioHttpClient::Impl> impl, uint64_t id, HttpRequest req,
           HttpCallbacks cb, std::shared_ptr<const Upstream> upstream, Serial serial)
      : impl_(std::move(impl)),
        id_(id),
        serial_(std::move(serial)),
        upstream_(std::move(upstream)),
        pool_key_(upstream_->pool_key),
        req_(std::move(req)),
        cb_(std::move(cb)),
        url_(upstream_->url),
        wheel_(serial_.ex.target_type() == typeid(PlainExecutor) && impl_->opt.one_thread_contexts
                   ? &TimerWheel::of(*serial_.ctx)
                   : nullptr) {}

  void start() {
    t0_ = Clock::now();
    asio::post(serial_.ex, [self = shared_from_this()] {
      if (self->req_.deadline.count() > 0)
        self->wait_until<&AsioCall::on_deadline>(self->deadline_dl_, self->deadline_,
                                                 Clock::now() + self->req_.deadline);
      self->build_head();
      self->attempt();
    });
  }

  void cancel() {
    asio::post(serial_.ex, [self = shared_from_this()] {
      self->finish(make_error(ErrorCode::cancelled, "cancelled"));
    });
  }

  // Flow control (HttpCall::set_paused). Paused, the body is not read: the
  // read in flight completes and is delivered, and the next one waits for
  // the resume; the idle timeout stops meanwhile. Inline when called on the
  // call's strand (the gateway pauses from inside on_body's chain), so no
  // further read starts.
  void set_paused(bool paused) {
    asio::dispatch(serial_.ex, [self = shared_from_this(), paused] {
      if (self->done_ || self->paused_ == paused) return;
      self->paused_ = paused;
      if (paused) {
        if (self->idle_kind_ == Timeout::idle && self->head_shown_)
          self->idle_kind_ = Timeout::none;
        return;
      }
      if (!self->parked_) return;
      self->parked_ = false;
      self->read_body();  // re-arms the idle timeout
    });
  }

 private:
  template <class F>
  auto on_strand(F&& f) {
    return asio::bind_executor(serial_.ex, std::forward<F>(f));
  }

  void build_head() {
    head_.reserve(256 + req_.headers.size() * 48);
    head_ = req_.method + " " + url_.target + " HTTP/1.1\r\nhost: " + url_.authority + "\r\n";
    if (!req_.headers.contains("user-agent"))
      head_ += "user-agent: " + impl_->opt.user_agent + "\r\n";
    for (const auto& [k, v] : req_.headers) {
      head_ += k;
      head_ += ": ";
      head_ += v;
      head_ += "\r\n";
    }
    if (!req_.body.empty() || req_.method == "POST" || req_.method == "PUT" ||
        req_.method == "PATCH")
      head_ += "content-length: " + std::to_string(req_.body.size()) + "\r\n";
    head_ += "\r\n";
  }

  // ---- one attempt -----------------------------------------------------

  void attempt() {
    if (done_) return;
    ++stats_.attempts;
    got_bytes_ = false;
    parser_.reset();
    conn_ = impl_->pool.take(pool_key_);
    reused_ = conn_ != nullptr;
    if (reused_) return send();
    conn_ =
        std::make_shared<Connection>(*serial_.ctx, url_.tls ? impl_->tls() : nullptr, pool_key_);
    arm_idle(req_.connect_timeout, Timeout::connect);
    error_code ec;
    auto addr = asio::ip::make_address(url_.host, ec);
    if (!ec) {
      tcp::endpoint ep(addr, url_.port);
      conn_->socket().async_connect(ep, on_strand([self = shared_from_this(), c = conn_](
                                                      error_code ec) { self->on_connected(ec); }));
      return;
    }
    // Made on first use: a call on a pooled connection, or to an IP
    // address, never resolves (each I/O object costs a service lookup).
    if (!resolver_) resolver_.emplace(serial_.ex);
    resolver_->async_resolve(
        url_.host, std::to_string(url_.port),
        on_strand([self = shared_from_this()](error_code ec, tcp::resolver::results_type r) {
          if (self->done_) return;
          if (ec) return self->failed_before_head("resolve", ec);
          asio::async_connect(
              self->conn_->socket(), r,
              self->on_strand([self, c = self->conn_](error_code ec, const tcp::endpoint&) {
                self->on_connected(ec);
              }));
        }));
  }

  void on_connected(error_code ec) {
    if (done_) return;
    if (ec) return failed_before_head("connect", ec);
    error_code ignored;
    conn_->socket().set_option(tcp::no_delay(true), ignored);
    if (!conn_->tls()) return send();
    auto& s = conn_->tls_stream();
    if (!SSL_set_tlsext_host_name(s.native_handle(), url_.host.c_str()))
      return failed_before_head("TLS SNI", error_code(static_cast<int>(::ERR_get_error()),
                                                      asio::error::get_ssl_category()));
    s.set_verify_callback(asio::ssl::host_name_verification(url_.host));
    s.async_handshake(asio::ssl::stream_base::client,
                      on_strand([self = shared_from_this(), c = conn_](error_code ec) {
                        if (self->done_) return;
                        if (ec) return self->failed_before_head("TLS handshake", ec);
                        self->send();
                      }));
  }

  void send() {
    if (done_) return;
    ++conn_->uses;
    std::array<asio::const_buffer, 2> bufs{asio::buffer(head_), asio::buffer(req_.body)};
    arm_idle(req_.idle_timeout, Timeout::idle);
    // Plain TCP: the request goes out now, in one non-blocking writev (a
    // request's few KB fit the socket's buffer). Asio would post the
    // completion of a write it could do at once: a scheduler pass and an
    // epoll_wait more per request. What the socket does not take goes the
    // asynchronous way.
    if (!conn_->tls() && conn_->set_non_blocking()) {
      error_code ec;
      const size_t n = conn_->socket().write_some(bufs, ec);
      if (!ec && n == head_.size() + req_.body.size()) return read_head();
      if (ec && ec != asio::error::would_block && ec != asio::error::try_again)
        return failed_before_head("write", ec);
      const size_t sent = ec ? 0 : n;
      if (sent < head_.size()) {
        bufs[0] = asio::buffer(head_) + sent;
      } else {
        bufs[0] = asio::const_buffer();
        bufs[1] = asio::buffer(req_.body) + (sent - head_.size());
      }
    }
    conn_->with_stream([&](auto& stream) {
      asio::async_write(stream, bufs,
                        on_strand([self = shared_from_this(), c = conn_](error_code ec, size_t) {
                          if (self->done_) return;
                          if (ec) return self->failed_before_head("write", ec);
                          self->read_head();
                        }));
    });
  }

  void read_head() {
    parser_.emplace();
    parser_->header_limit(64 * 1024);
    // No limit (the caller's on_body decides). Not boost::none: Beast 1.74
    // compares a Content-Length against an empty optional as "over the limit".
    parser_->body_limit(std::numeric_limits<std::uint64_t>::max());
    if (req_.method == "HEAD") parser_->skip(true);
    conn_->with_stream([&](auto& stream) {
      bhttp::async_read_header(
          stream, conn_->buffer, *parser_,
          on_strand([self = shared_from_this(), c = conn_](error_code ec, size_t n) {
            if (self->done_) return;
            if (n > 0) self->got_bytes_ = true;
            if (ec) return self->failed_before_head("read", ec);
            self->on_head();
          }));
    });
  }

  void on_head() {
    auto& msg = parser_->get();
    int status = static_cast<int>(msg.result_int());
    stats_.last_status = status;
    HttpResponseHead head;
    head.status = status;
    head.http_version = msg.version() == 10 ? "HTTP/1.0" : "HTTP/1.1";
    for (const auto& f : msg)
      head.headers.add(std::string(f.name_string()), std::string(f.value()));
    if (retry_status(status, head.headers)) return;
    stats_.time_to_head = duration_cast<microseconds>(Clock::now() - t0_);
    head_shown_ = true;
    if (cb_.on_head && !cb_.on_head(head))
      return finish(make_error(ErrorCode::cancelled, "cancelled by on_head"));
    if (done_) return;
    if (parser_->is_done()) return complete();
    rbuf_ = conn_->read_buffer(impl_->opt.receive_buffer);
    rsize_ = impl_->opt.receive_buffer;
    if (paused_) {
      parked_ = true;
      return;
    }
    read_body();
  }

  // A retryable status before anything was shown: wait and try again.
  bool retry_status(int status, const HttpHeaders& headers) {
    auto verdict = should_retry_header(headers);
    bool retry = verdict ? *verdict : is_retryable_status(status);
    if (!retry || stats_.attempts >= req_.retry.max_attempts) return false;
    std::optional<Millis> wait;
    if (req_.retry.honor_retry_after) wait = retry_after(headers, std::chrono::system_clock::now());
    if (wait && *wait > req_.retry.max_retry_after) return false;  // not worth waiting: show it
    Millis delay = wait ? *wait : impl_->backoff(req_.retry, stats_.attempts);
    if (!fits_deadline(delay)) return false;
    drop_connection();
    schedule_retry(delay);
    return true;
  }

  void read_body() {
    auto& body = parser_->get().body();
    body.data = rbuf_;
    body.size = rsize_;
    arm_idle(req_.idle_timeout, Timeout::idle);
    // What the connection already holds (a small answer's body comes with
    // its head) is parsed now: Beast would complete its read without I/O and
    // post the completion, a scheduler pass more.
    if (conn_->buffer.size() > 0) {
      error_code ec;
      parse_buffered(ec);
      if (ec || parser_->is_done() || body.size < rsize_) return on_body_read(ec);
    }
    conn_->with_stream([&](auto& stream) {
      bhttp::async_read_some(stream, conn_->buffer, *parser_,
                             on_strand([self = shared_from_this(), c = conn_](
                                           error_code ec, size_t) { self->on_body_read(ec); }));
    });
  }

  // Parses what the connection already holds into the body buffer, with no
  // further read. Beast's read_some stops after each chunk of a chunked body,
  // so without this a streamed answer that arrived in one segment costs one
  // asynchronous round, one on_body and so one client write per chunk (per
  // SSE event, as upstreams frame them).
  void parse_buffered(error_code& ec) {
    auto& body = parser_->get().body();
    while (!parser_->is_done() && body.size > 0 && conn_->buffer.size() > 0) {
      size_t used = parser_->put(conn_->buffer.data(), ec);
      conn_->buffer.consume(used);
      if (ec == bhttp::error::need_more || ec == bhttp::error::need_buffer) {
        ec = {};
        return;
      }
      if (ec || used == 0) return;
    }
  }

  void on_body_read(error_code ec) {
    if (done_) return;
    if (ec == bhttp::error::need_buffer) ec = {};
    if (!ec) parse_buffered(ec);
    size_t n = rsize_ - parser_->get().body().size;
    if (n > 0) {
      if (stats_.body_bytes == 0)
        stats_.time_to_first_byte = duration_cast<microseconds>(Clock::now() - t0_);
      stats_.body_bytes += n;
      if (cb_.on_body && !cb_.on_body(std::string_view(rbuf_, n)))
        return finish(make_error(ErrorCode::cancelled, "cancelled by on_body"));
      if (done_) return;
    }
    if (ec) {
      return finish(
          make_error(ErrorCode::unavailable,
                     "upstream " + url_.pool_key + ": response cut short: " + ec.message()));
    }
    if (parser_->is_done()) return complete();
    if (paused_) {
      parked_ = true;  // set_paused(false) reads on
      idle_kind_ = Timeout::none;
      return;
    }
    read_body();
  }

  void complete() {
    bool reuse = parser_->get().keep_alive() && !parser_->need_eof() && conn_->buffer.size() == 0;
    idle_kind_ = Timeout::none;
    if (reuse) {
      parser_.reset();
      impl_->pool.put(std::move(conn_));
    }
    finish(Status::Ok());
  }

  // ---- failures, retries, the end ---------------------------------------

  void failed_before_head(const char* stage, error_code ec) {
    Timeout t = timeout_;
    timeout_ = Timeout::none;
    idle_kind_ = Timeout::none;
    drop_connection();
    if (t == Timeout::idle)
      return finish(make_error(ErrorCode::deadline_exceeded,
                               "upstream " + url_.pool_key + ": no byte for " +
                                   std::to_string(req_.idle_timeout.count()) + " ms"));
    // A pooled connection the server closed meanwhile: once, at no cost.
    if (reused_ && !got_bytes_ && !stale_retried_ && t == Timeout::none) {
      stale_retried_ = true;
      --stats_.attempts;
      return attempt();
    }
    std::string what =
        t == Timeout::connect
            ? "connect timed out after " + std::to_string(req_.connect_timeout.count()) + " ms"
            : std::string(stage) + " failed: " + ec.message();
    Error err = make_error(ErrorCode::unavailable, "upstream " + url_.pool_key + ": " + what);
    if (stats_.attempts < req_.retry.max_attempts) {
      Millis delay = impl_->backoff(req_.retry, stats_.attempts);
      if (fits_deadline(delay)) return schedule_retry(delay);
    }
    if (stats_.attempts > 1)
      err.message += "; gave up after " + std::to_string(stats_.attempts) + " attempts";
    finish(err);
  }

  bool fits_deadline(Millis delay) const {
    if (req_.deadline.count() <= 0) return true;
    return Clock::now() + delay < t0_ + req_.deadline;
  }

  void schedule_retry(Millis delay) {
    stats_.retry_wait += delay;
    if (!backoff_) backoff_.emplace(serial_.ex);  // only a call that retries needs it
    backoff_->expires_after(delay);
    backoff_->async_wait([self = shared_from_this()](error_code ec) {
      if (ec || self->done_) return;
      self->attempt();
    });
  }

  enum class Timeout { none, idle, connect };

  // Lazy: the timer is set once per attempt and, when it fires early, moved
  // to the last activity + the limit. Re-setting it on every read cost a
  // timerfd_settime system call per stream event.
  void arm_idle(Millis d, Timeout kind) {
    idle_kind_ = d.count() > 0 ? kind : Timeout::none;
    idle_for_ = d;
    last_activity_ = Clock::now();
    if (idle_kind_ == Timeout::none || idle_armed_) return;
    idle_armed_ = true;
    wait_until<&AsioCall::on_idle_timer>(idle_dl_, idle_, last_activity_ + d);
  }

  // Waits for one of the call's deadlines (its total time, its connect or
  // idle time), then runs Fn: on the thread's timer wheel when the call's
  // handlers run on a plain io_context that one thread runs (the gateway's
  // workers: no Asio timer operation per request), else on an Asio timer of
  // its strand. On the wheel the call holds itself while a deadline is
  // armed, as a pending Asio wait would: it never ends armed, which could be
  // on another thread than the wheel's.
  template <void (AsioCall::*Fn)(error_code)>
  void wait_until(Deadline& dl, std::optional<asio::steady_timer>& timer, Clock::time_point at) {
    if (wheel_) {
      if (!armed_self_) armed_self_ = shared_from_this();
      dl.arm(
          *wheel_, at,
          [](void* p) {
            auto self = static_cast<AsioCall*>(p)->shared_from_this();
            if (!self->deadline_dl_.armed() && !self->idle_dl_.armed()) self->armed_self_.reset();
            ((*self).*Fn)(error_code{});
          },
          this);
      return;
    }
    if (!timer) timer.emplace(serial_.ex);
    timer->expires_at(at);
    timer->async_wait([self = shared_from_this()](error_code ec) { ((*self).*Fn)(ec); });
  }

  void on_deadline(error_code ec) {
    if (ec || done_) return;
    finish(make_error(ErrorCode::deadline_exceeded, "upstream " + url_.pool_key + ": deadline of " +
                                                        std::to_string(req_.deadline.count()) +
                                                        " ms exceeded"));
  }

  void on_idle_timer(error_code ec) {
    idle_armed_ = false;
    if (ec || done_ || idle_kind_ == Timeout::none) return;
    auto due = last_activity_ + idle_for_;
    if (Clock::now() < due) {
      idle_armed_ = true;
      wait_until<&AsioCall::on_idle_timer>(idle_dl_, idle_, due);
      return;
    }
    if (idle_kind_ == Timeout::idle && head_shown_)
      return finish(make_error(ErrorCode::deadline_exceeded,
                               "upstream " + url_.pool_key + ": no byte for " +
                                   std::to_string(req_.idle_timeout.count()) + " ms"));
    timeout_ = idle_kind_;
    if (conn_) conn_->close();  // the pending operation fails; see failed_before_head
  }

  // The connection object (its buffer, the read buffer) stays alive until
  // the operation in flight on it completes: every handler holds a reference.
  void drop_connection() {
    if (conn_) conn_->close();
    conn_.reset();
  }

  void finish(Status s) {
    if (done_) return;
    done_ = true;
    deadline_dl_.cancel();
    idle_dl_.cancel();
    if (deadline_) deadline_->cancel();
    if (idle_) idle_->cancel();
    if (backoff_) backoff_->cancel();
    if (resolver_) resolver_->cancel();
    drop_connection();
    stats_.total_time = duration_cast<microseconds>(Clock::now() - t0_);
    {
      std::lock_guard lock(impl_->mu);
      impl_->active.erase(id_);
    }
    HttpCallbacks cb = std::move(cb_);
    // Every caller holds the call: dropping the hold of an armed deadline
    // does not end it here.
    armed_self_.reset();
    if (cb.on_complete) cb.on_complete(s, stats_);
  }

  std::shared_ptr<AsioHttpClient::Impl> impl_;
  uint64_t id_;
  // Every handler of this call runs on serial_.ex, one at a time: a strand,
  // or the executor of an io_context one thread runs (serial_for).
  Serial serial_;
  std::shared_ptr<const Upstream> upstream_;
  const std::string& pool_key_;  // url_.pool_key on serial_.ctx
  using Timer = asio::steady_timer;
  HttpRequest req_;
  HttpCallbacks cb_;
  const ParsedUrl& url_;
  std::optional<tcp::resolver> resolver_;
  TimerWheel* wheel_;  // the thread's, where the call's deadlines go (wait_until); or null
  Deadline deadline_dl_, idle_dl_;
  std::shared_ptr<AsioCall> armed_self_;  // while one of them is armed
  std::optional<Timer> deadline_, idle_;  // without a wheel
  std::optional<Timer> backoff_;
  std::string head_;
  std::shared_ptr<Connection> conn_;
  std::optional<bhttp::response_parser<bhttp::buffer_body>> parser_;
  char* rbuf_ = nullptr;  // the connection's read buffer
  size_t rsize_ = 0;
  HttpStats stats_;
  Clock::time_point t0_{};
  Timeout timeout_ = Timeout::none;
  Timeout idle_kind_ = Timeout::none;
  Millis idle_for_{0};
  Clock::time_point last_activity_{};
  bool idle_armed_ = false;
  bool reused_ = false;
  bool stale_retried_ = false;
  bool got_bytes_ = false;
  bool head_shown_ = false;
  bool paused_ = false;  // set_paused(true)
  bool parked_ = false;  // paused with no read in flight: the resume reads
  bool done_ = false;
};

AsioHttpClient::AsioHttpClient(asio::io_context& ioc, AsioClientOptions options)
    : impl_(std::make_shared<Impl>(ioc, std::move(options))) {}

AsioHttpClient::~AsioHttpClient() {
  std::vector<std::shared_ptr<AsioCall>> calls;
  {
    std::lock_guard lock(impl_->mu);
    for (auto& [id, w] : impl_->active)
      if (auto c = w.lock()) calls.push_back(std::move(c));
  }
  for (auto& c : calls) c->cancel();
  impl_->pool.clear();
}

HttpCall AsioHttpClient::start(HttpRequest request, HttpCallbacks callbacks) {
  uint64_t id = impl_->next_id.fetch_add(1);
  Serial serial = serial_for(impl_->ioc, t_strand, impl_->opt.one_thread_contexts);
  auto upstream = upstream_for(request.url, *serial.ctx);
  if (!upstream) {
    // Reported like every other failure: once, through on_complete, later.
    Error e = upstream.error();
    auto cb = std::make_shared<HttpCallbacks>(std::move(callbacks));
    asio::post(impl_->ioc, [cb, e] {
      if (cb->on_complete) cb->on_complete(Status(e), HttpStats{});
    });
    return HttpCall(std::make_shared<const std::function<void()>>([] {}), id);
  }
  auto call = std::make_shared<AsioCall>(impl_, id, std::move(request), std::move(callbacks),
                                         std::move(*upstream), std::move(serial));
  {
    std::lock_guard lock(impl_->mu);
    impl_->active.emplace(id, call);
  }
  call->start();
  std::weak_ptr<AsioCall> weak = call;
  return HttpCall(std::make_shared<const std::function<void()>>([weak] {
                    if (auto c = weak.lock()) c->cancel();
                  }),
                  id, std::make_shared<const std::function<void(bool)>>([weak](bool paused) {
                    if (auto c = weak.lock()) c->set_paused(paused);
                  }));
}

size_t AsioHttpClient::active_calls() const {
  std::lock_guard lock(impl_->mu);
  return impl_->active.size();
}

size_t AsioHttpClient::idle_connections() const { return impl_->pool.size(); }

}  // namespace toolwire::transport
