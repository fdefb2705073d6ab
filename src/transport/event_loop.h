// The one thread behind an HttpClient: epoll + libcurl's multi socket API,
// a timer heap for deadlines, idle timeouts and retry delays, and an eventfd
// through which other threads hand in new calls and cancellations.
#pragma once

#include "toolwire/libcurl/api.h"

#include <atomic>
#include <memory>
#include <mutex>
#include <queue>
#include <random>
#include <thread>
#include <unordered_map>
#include <vector>

#include "transfer.h"

namespace toolwire::transport::detail {

class EventLoop {
 public:
  explicit EventLoop(HttpClientOptions options);
  ~EventLoop();

  // Starts the thread; false (with the reason) when epoll/eventfd/curl fail.
  Status start_thread();
  // Cancels everything still running and joins the thread.
  void stop();

  // Any thread. `pause_wanted`: HttpCall::set_paused's flag (may be null).
  uint64_t submit(HttpRequest req, HttpCallbacks cb,
                  std::shared_ptr<std::atomic<bool>> pause_wanted = nullptr);
  void cancel(uint64_t id);              // any thread
  void pause(uint64_t id, bool paused);  // any thread (HttpCall::set_paused)
  size_t active() const { return active_.load(); }
  std::thread::id thread_id() const { return thread_id_; }

  // Called from the header callback when a final head is complete: decides
  // between retrying this attempt and delivering the head. False aborts the
  // attempt (retry or callback refusal is recorded in the Transfer).
  bool head_complete(Transfer& t);

 private:
  enum class TimerKind { deadline, idle, retry };
  struct Timer {
    Clock::time_point at;
    uint64_t id;
    TimerKind kind;
    uint64_t gen;
    bool operator>(const Timer& o) const { return at > o.at; }
  };

  void run();
  // Takes new calls and cancellations; true when the client is stopping.
  bool drain_inbox();
  void fire_timers();
  void read_multi_info();
  int next_timeout_ms() const;

  void begin(std::unique_ptr<Transfer> t);
  void start_attempt(Transfer& t);
  void schedule_retry(Transfer& t, Millis delay);
  // Removes the transfer, runs on_complete, frees it.
  void finish(uint64_t id, Status status);
  bool retry_budget(Transfer& t, Millis delay) const;

  static int on_socket(CURL* easy, curl_socket_t s, int what, void* userp, void* socketp);
  static int on_timer(CURLM* multi, long timeout_ms, void* userp);

  HttpClientOptions options_;
  CURLM* multi_ = nullptr;
  int epoll_fd_ = -1;
  int wake_fd_ = -1;
  std::thread thread_;
  std::thread::id thread_id_;
  std::atomic<size_t> active_{0};
  std::atomic<uint64_t> next_id_{1};

  // Handed in by other threads.
  std::mutex inbox_mu_;
  std::vector<std::unique_ptr<Transfer>> inbox_starts_;
  std::vector<uint64_t> inbox_cancels_;
  std::vector<std::pair<uint64_t, bool>> inbox_pauses_;
  bool stopping_ = false;

  // Loop thread only.
  std::unordered_map<uint64_t, std::unique_ptr<Transfer>> transfers_;
  std::priority_queue<Timer, std::vector<Timer>, std::greater<Timer>> timers_;
  Clock::time_point curl_timer_at_ = Clock::time_point::max();
  std::vector<CURL*> easy_pool_;  // reset handles kept for reuse: saves an init per call
  std::mt19937_64 rng_;
};

}  // namespace toolwire::transport::detail
