// Test helper: records what an HttpClient call hands to its callbacks.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "toolwire/transport/http_client.h"

namespace tw_test {

using namespace toolwire;
using namespace toolwire::transport;
using namespace std::chrono_literals;

struct Collector {
  mutable std::mutex mu;
  std::condition_variable cv;
  int status = 0;
  HttpHeaders headers;
  std::vector<std::string> pieces;
  std::string body;
  bool done = false;
  Status result;
  HttpStats stats;
  std::vector<std::thread::id> callback_threads;
  bool abort_body = false;  // on_body returns false

  HttpCallbacks callbacks() {
    HttpCallbacks cb;
    cb.on_head = [this](const HttpResponseHead& h) {
      std::lock_guard<std::mutex> lock(mu);
      status = h.status;
      headers = h.headers;
      callback_threads.push_back(std::this_thread::get_id());
      return true;
    };
    cb.on_body = [this](std::string_view bytes) {
      std::lock_guard<std::mutex> lock(mu);
      pieces.emplace_back(bytes);
      body.append(bytes);
      callback_threads.push_back(std::this_thread::get_id());
      cv.notify_all();
      return !abort_body;
    };
    cb.on_complete = [this](const Status& s, const HttpStats& st) {
      std::lock_guard<std::mutex> lock(mu);
      result = s;
      stats = st;
      done = true;
      callback_threads.push_back(std::this_thread::get_id());
      cv.notify_all();
    };
    return cb;
  }

  bool wait_done(std::chrono::milliseconds timeout = 10s) {
    std::unique_lock<std::mutex> lock(mu);
    return cv.wait_for(lock, timeout, [&] { return done; });
  }
  // Waits until the body holds `needle`.
  bool wait_body(const std::string& needle, std::chrono::milliseconds timeout = 10s) {
    std::unique_lock<std::mutex> lock(mu);
    return cv.wait_for(lock, timeout, [&] {
      return body.find(needle) != std::string::npos || done;
    }) && body.find(needle) != std::string::npos;
  }
  bool is_done() const {
    std::lock_guard<std::mutex> lock(mu);
    return done;
  }
};

inline HttpRequest get(std::string url) {
  HttpRequest r;
  r.url = std::move(url);
  return r;
}

inline RetryPolicy fast_retries(int attempts) {
  RetryPolicy p;
  p.max_attempts = attempts;
  p.initial_backoff = 10ms;
  p.max_backoff = 40ms;
  return p;
}

}  // namespace tw_test
