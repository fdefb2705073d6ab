// A token bucket: `rate` tokens a second, at most `burst` saved up.
#pragma once

#include <algorithm>
#include <chrono>
#include <mutex>

namespace toolwire::gateway::conductor {

class TokenBucket {
 public:
  using Clock = std::chrono::steady_clock;
  TokenBucket(double rate, double burst) : rate_(rate), burst_(burst), tokens_(burst) {}
  bool take(Clock::time_point now) {
    if (last_ != Clock::time_point{}) {
      double dt = std::chrono::duration<double>(now - last_).count();
      tokens_ = std::min(burst_, tokens_ + dt * rate_);
    }
    last_ = now;
    if (tokens_ < 1) return false;
    tokens_ -= 1;
    return true;
  }

 private:
  double rate_;
  double burst_;
  double tokens_;
  Clock::time_point last_{};
};

// A bucket several strands take from (a session's connections over time, the
// sessions of one gateway key).
class SharedBucket {
 public:
  SharedBucket(double rate, double burst) : b_(rate, burst) {}
  bool take(TokenBucket::Clock::time_point now) {
    std::lock_guard lock(mu_);
    return b_.take(now);
  }

 private:
  std::mutex mu_;
  TokenBucket b_;
};

}  // namespace toolwire::gateway::conductor
