// The loop: epoll over libcurl's sockets, timers, and the inbox.
#include "event_loop.h"

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "toolwire/transport/retry.h"

namespace toolwire::transport::detail {

namespace {

std::chrono::microseconds since(Clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - t);
}

std::string ms_text(Millis ms) { return std::to_string(ms.count()) + " ms"; }

}  // namespace

EventLoop::EventLoop(HttpClientOptions options) : options_(std::move(options)) {
  uint64_t seed = options_.jitter_seed;
  if (seed == 0)
    seed = std::random_device{}() ^ static_cast<uint64_t>(Clock::now().time_since_epoch().count());
  rng_.seed(seed);
}

EventLoop::~EventLoop() {
  stop();
  for (CURL* e : easy_pool_) libcurl::easy_cleanup(e);
  if (multi_) libcurl::multi_cleanup(multi_);
  if (epoll_fd_ >= 0) close(epoll_fd_);
  if (wake_fd_ >= 0) close(wake_fd_);
}

Status EventLoop::start_thread() {
  epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
  wake_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  multi_ = libcurl::multi_init();
  if (epoll_fd_ < 0 || wake_fd_ < 0 || !multi_) {
    return make_error(ErrorCode::internal,
                      std::string("http client setup failed: ") + std::strerror(errno));
  }
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.fd = wake_fd_;
  epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, wake_fd_, &ev);
  libcurl::multi_setopt(multi_, CURLMOPT_SOCKETFUNCTION, &EventLoop::on_socket);
  libcurl::multi_setopt(multi_, CURLMOPT_SOCKETDATA, this);
  libcurl::multi_setopt(multi_, CURLMOPT_TIMERFUNCTION, &EventLoop::on_timer);
  libcurl::multi_setopt(multi_, CURLMOPT_TIMERDATA, this);
  if (options_.max_connections > 0)
    libcurl::multi_setopt(multi_, CURLMOPT_MAXCONNECTS, options_.max_connections);
  if (options_.max_host_connections > 0)
    libcurl::multi_setopt(multi_, CURLMOPT_MAX_HOST_CONNECTIONS, options_.max_host_connections);
  thread_ = std::thread([this] { run(); });
  thread_id_ = thread_.get_id();
  return Status::Ok();
}

void EventLoop::stop() {
  {
    std::lock_guard<std::mutex> lock(inbox_mu_);
    if (stopping_ && !thread_.joinable()) return;
    stopping_ = true;
  }
  uint64_t one = 1;
  if (wake_fd_ >= 0) (void)!write(wake_fd_, &one, sizeof one);
  if (thread_.joinable()) thread_.join();
}

uint64_t EventLoop::submit(HttpRequest req, HttpCallbacks cb,
                           std::shared_ptr<std::atomic<bool>> pause_wanted) {
  uint64_t id = next_id_.fetch_add(1);
  auto t = std::make_unique<Transfer>(id, std::move(req), std::move(cb));
  t->pause_wanted = std::move(pause_wanted);
  t->loop = this;
  t->started = Clock::now();
  active_.fetch_add(1);
  {
    std::lock_guard<std::mutex> lock(inbox_mu_);
    inbox_starts_.push_back(std::move(t));
  }
  uint64_t one = 1;
  (void)!write(wake_fd_, &one, sizeof one);
  return id;
}

void EventLoop::cancel(uint64_t id) {
  {
    std::lock_guard<std::mutex> lock(inbox_mu_);
    inbox_cancels_.push_back(id);
  }
  uint64_t one = 1;
  (void)!write(wake_fd_, &one, sizeof one);
}

void EventLoop::pause(uint64_t id, bool paused) {
  {
    std::lock_guard<std::mutex> lock(inbox_mu_);
    inbox_pauses_.emplace_back(id, paused);
  }
  uint64_t one = 1;
  (void)!write(wake_fd_, &one, sizeof one);
}

int EventLoop::on_socket(CURL*, curl_socket_t s, int what, void* userp, void* socketp) {
  auto* self = static_cast<EventLoop*>(userp);
  if (what == CURL_POLL_REMOVE) {
    epoll_ctl(self->epoll_fd_, EPOLL_CTL_DEL, s, nullptr);  // EBADF if curl closed it first: fine
    libcurl::multi_assign(self->multi_, s, nullptr);
    return 0;
  }
  epoll_event ev{};
  ev.events = ((what & CURL_POLL_IN) ? EPOLLIN : 0u) | ((what & CURL_POLL_OUT) ? EPOLLOUT : 0u);
  ev.data.fd = s;
  int op = socketp ? EPOLL_CTL_MOD : EPOLL_CTL_ADD;
  if (epoll_ctl(self->epoll_fd_, op, s, &ev) != 0) {
    // A recycled descriptor number can leave our bookkeeping one step behind.
    epoll_ctl(self->epoll_fd_, op == EPOLL_CTL_ADD ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, s, &ev);
  }
  if (!socketp) libcurl::multi_assign(self->multi_, s, self);
  return 0;
}

int EventLoop::on_timer(CURLM*, long timeout_ms, void* userp) {
  auto* self = static_cast<EventLoop*>(userp);
  self->curl_timer_at_ =
      timeout_ms < 0 ? Clock::time_point::max() : Clock::now() + Millis(timeout_ms);
  return 0;
}

int EventLoop::next_timeout_ms() const {
  Clock::time_point next = curl_timer_at_;
  if (!timers_.empty()) next = std::min(next, timers_.top().at);
  if (next == Clock::time_point::max()) return 1000;
  auto now = Clock::now();
  if (next <= now) return 0;
  // Round up so a timer is never woken for a millisecond early.
  auto us = std::chrono::duration_cast<std::chrono::microseconds>(next - now).count();
  return static_cast<int>(std::min<int64_t>((us + 999) / 1000, 1000));
}

void EventLoop::run() {
  std::vector<epoll_event> events(256);
  int running = 0;
  bool woken = true;
  for (;;) {
    // The inbox lock is taken only when another thread rang the eventfd.
    if (woken && drain_inbox()) break;
    woken = false;
    int n =
        epoll_wait(epoll_fd_, events.data(), static_cast<int>(events.size()), next_timeout_ms());
    for (int i = 0; i < n; ++i) {
      int fd = events[i].data.fd;
      if (fd == wake_fd_) {
        uint64_t v;
        (void)!read(wake_fd_, &v, sizeof v);  // an eventfd read returns and clears the whole count
        woken = true;
        continue;
      }
      uint32_t e = events[i].events;
      int flags = ((e & EPOLLIN) ? CURL_CSELECT_IN : 0) | ((e & EPOLLOUT) ? CURL_CSELECT_OUT : 0) |
                  ((e & (EPOLLERR | EPOLLHUP)) ? CURL_CSELECT_ERR : 0);
      libcurl::multi_socket_action(multi_, fd, flags, &running);
    }
    if (curl_timer_at_ <= Clock::now()) {
      curl_timer_at_ = Clock::time_point::max();
      libcurl::multi_socket_action(multi_, CURL_SOCKET_TIMEOUT, 0, &running);
    }
    read_multi_info();
    fire_timers();
  }
  // Shutting down: everything still running completes as cancelled.
  drain_inbox();
  std::vector<uint64_t> ids;
  for (const auto& [id, t] : transfers_) ids.push_back(id);
  for (uint64_t id : ids) finish(id, make_error(ErrorCode::cancelled, "http client shut down"));
}

bool EventLoop::drain_inbox() {
  std::vector<std::unique_ptr<Transfer>> starts;
  std::vector<uint64_t> cancels;
  std::vector<std::pair<uint64_t, bool>> pauses;
  bool stopping;
  {
    std::lock_guard<std::mutex> lock(inbox_mu_);
    starts.swap(inbox_starts_);
    cancels.swap(inbox_cancels_);
    pauses.swap(inbox_pauses_);
    stopping = stopping_;
  }
  for (auto& t : starts) begin(std::move(t));
  for (uint64_t id : cancels) {
    if (transfers_.count(id)) finish(id, make_error(ErrorCode::cancelled, "call cancelled"));
  }
  // Flow control: the receive side of the transfer stops (libcurl keeps at
  // most one buffer of what it had read); resuming may deliver that buffer
  // at once, from inside curl_easy_pause. A pause may already be in effect:
  // the body callback applies the flag itself (on_body_bytes).
  for (auto [id, paused] : pauses) {
    auto it = transfers_.find(id);
    if (it == transfers_.end()) continue;
    Transfer& t = *it->second;
    if (t.paused == paused) continue;
    t.paused = paused;
    t.last_activity = Clock::now();  // the idle timeout counts from the resume
    if (t.easy && t.in_multi) libcurl::easy_pause(t.easy, paused ? CURLPAUSE_RECV : CURLPAUSE_CONT);
  }
  return stopping;
}

void EventLoop::begin(std::unique_ptr<Transfer> owned) {
  Transfer& t = *owned;
  uint64_t id = t.id;
  transfers_.emplace(id, std::move(owned));
  if (!easy_pool_.empty()) {
    t.easy = easy_pool_.back();
    easy_pool_.pop_back();
  }
  Status s = setup_easy(t, options_);
  if (!s.ok()) {
    finish(id, make_error(s.error().code, describe(t.req) + ": " + s.error().message));
    return;
  }
  if (t.req.deadline.count() > 0) {
    t.deadline_at = t.started + t.req.deadline;
    timers_.push(Timer{t.deadline_at, id, TimerKind::deadline, 0});
  }
  start_attempt(t);
}

void EventLoop::start_attempt(Transfer& t) {
  t.attempt_gen++;
  t.stats.attempts++;
  t.head = HttpResponseHead{};
  t.abort = Transfer::Abort::none;
  t.errbuf[0] = '\0';
  t.waiting_retry = false;
  t.last_activity = Clock::now();
  CURLMcode rc = libcurl::multi_add_handle(multi_, t.easy);
  if (rc != CURLM_OK) {
    finish(t.id, make_error(ErrorCode::internal,
                            std::string("curl_multi_add_handle: ") + libcurl::multi_strerror(rc)));
    return;
  }
  t.in_multi = true;
  if (t.req.idle_timeout.count() > 0) {
    timers_.push(Timer{t.last_activity + t.req.idle_timeout, t.id, TimerKind::idle, t.attempt_gen});
  }
}

bool EventLoop::retry_budget(Transfer& t, Millis delay) const {
  if (t.stats.attempts >= t.req.retry.max_attempts) return false;
  if (t.deadline_at != Clock::time_point::max() && Clock::now() + delay >= t.deadline_at)
    return false;
  return true;
}

bool EventLoop::head_complete(Transfer& t) {
  t.stats.last_status = t.head.status;
  const RetryPolicy& policy = t.req.retry;
  bool retryable = should_retry_header(t.head.headers).value_or(is_retryable_status(t.head.status));
  if (retryable && t.stats.attempts < policy.max_attempts) {
    std::optional<Millis> asked;
    if (policy.honor_retry_after)
      asked = retry_after(t.head.headers, std::chrono::system_clock::now());
    Millis delay = asked ? *asked : backoff_delay(policy, t.stats.attempts, rng_);
    if ((!asked || *asked <= policy.max_retry_after) && retry_budget(t, delay)) {
      t.abort = Transfer::Abort::retry;
      t.retry_delay = delay;
      return false;
    }
  }
  t.committed = true;
  t.stats.time_to_head = since(t.started);
  if (t.cb.on_head && !t.cb.on_head(t.head)) {
    t.abort = Transfer::Abort::callback;
    return false;
  }
  return true;
}

void EventLoop::schedule_retry(Transfer& t, Millis delay) {
  t.waiting_retry = true;
  t.retry_wait_started = Clock::now();
  t.stats.retry_wait += delay;
  timers_.push(Timer{Clock::now() + delay, t.id, TimerKind::retry, t.attempt_gen});
}

void EventLoop::read_multi_info() {
  int left = 0;
  while (CURLMsg* msg = libcurl::multi_info_read(multi_, &left)) {
    if (msg->msg != CURLMSG_DONE) continue;
    Transfer* t = nullptr;
    libcurl::easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, &t);
    CURLcode code = msg->data.result;
    libcurl::multi_remove_handle(multi_, msg->easy_handle);  // msg is invalid from here on
    t->in_multi = false;
    if (t->abort == Transfer::Abort::retry) {
      schedule_retry(*t, t->retry_delay);
    } else if (t->abort == Transfer::Abort::callback) {
      finish(t->id, make_error(ErrorCode::cancelled,
                               describe(t->req) + ": aborted by the caller's callback"));
    } else if (code == CURLE_OK) {
      finish(t->id, Status::Ok());
    } else if (!t->committed && is_retryable_curl_error(code)) {
      Millis delay = backoff_delay(t->req.retry, t->stats.attempts, rng_);
      if (retry_budget(*t, delay)) {
        schedule_retry(*t, delay);
      } else {
        finish(t->id, transfer_error(*t, code));
      }
    } else {
      finish(t->id, transfer_error(*t, code));
    }
  }
}

void EventLoop::fire_timers() {
  auto now = Clock::now();
  while (!timers_.empty() && timers_.top().at <= now) {
    Timer timer = timers_.top();
    timers_.pop();
    auto it = transfers_.find(timer.id);
    if (it == transfers_.end()) continue;  // finished already
    Transfer& t = *it->second;
    switch (timer.kind) {
      case TimerKind::deadline:
        finish(t.id, make_error(ErrorCode::deadline_exceeded,
                                describe(t.req) + ": deadline of " + ms_text(t.req.deadline) +
                                    " exceeded after " + std::to_string(t.stats.attempts) +
                                    " attempt(s)"));
        break;
      case TimerKind::idle: {
        if (timer.gen != t.attempt_gen || !t.in_multi) break;
        if (t.paused) t.last_activity = now;  // the client is slow, not the upstream
        Clock::time_point due = t.last_activity + t.req.idle_timeout;
        if (due <= now) {
          finish(t.id, make_error(ErrorCode::deadline_exceeded,
                                  describe(t.req) + ": idle timeout, no bytes received for " +
                                      ms_text(t.req.idle_timeout)));
        } else {
          timers_.push(Timer{due, t.id, TimerKind::idle, timer.gen});
        }
        break;
      }
      case TimerKind::retry:
        if (timer.gen == t.attempt_gen && t.waiting_retry) start_attempt(t);
        break;
    }
  }
}

void EventLoop::finish(uint64_t id, Status status) {
  auto it = transfers_.find(id);
  if (it == transfers_.end()) return;
  std::unique_ptr<Transfer> t = std::move(it->second);
  transfers_.erase(it);
  if (t->in_multi) {
    libcurl::multi_remove_handle(multi_, t->easy);
    t->in_multi = false;
  }
  t->stats.total_time = since(t->started);
  active_.fetch_sub(1);  // first, so a caller woken by on_complete sees the count already down
  if (t->easy && easy_pool_.size() < 256) {
    libcurl::easy_reset(
        t->easy);  // keeps nothing of this call; connections live in the multi handle
    easy_pool_.push_back(t->easy);
    t->easy = nullptr;
  }
  if (t->cb.on_complete) t->cb.on_complete(status, t->stats);
}

}  // namespace toolwire::transport::detail
