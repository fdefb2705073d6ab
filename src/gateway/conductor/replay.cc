#include "gateway/conductor/replay.h"

#include <algorithm>

namespace toolwire::gateway::conductor {

void ReplayBuffer::add(uint64_t seq, std::string frame) {
  bytes_ += frame.size();
  events_.push_back({seq, std::move(frame)});
  while (!events_.empty() && (events_.size() > max_events_ || bytes_ > max_bytes_)) {
    dropped_through_ = events_.front().seq;
    bytes_ -= events_.front().frame.size();
    events_.pop_front();
  }
}

ReplayBuffer::Replay ReplayBuffer::after(uint64_t seq, uint64_t below) const {
  Replay r;
  r.complete = seq >= dropped_through_;
  auto it = std::upper_bound(events_.begin(), events_.end(), seq,
                             [](uint64_t s, const Entry& e) { return s < e.seq; });
  for (; it != events_.end() && it->seq < below; ++it) r.frames.push_back(it->frame);
  return r;
}

std::vector<std::pair<uint64_t, std::string>> ReplayBuffer::entries() const {
  std::vector<std::pair<uint64_t, std::string>> out;
  out.reserve(events_.size());
  for (const auto& e : events_) out.emplace_back(e.seq, e.frame);
  return out;
}

}  // namespace toolwire::gateway::conductor
