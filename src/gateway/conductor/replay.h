// The events a session sent, kept (bounded) for a client that reconnects:
// a resume with lastEventId gets every later one again, in order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <utility>
#include <vector>

namespace toolwire::gateway::conductor {

class ReplayBuffer {
 public:
  ReplayBuffer(size_t max_events, size_t max_bytes)
      : max_events_(max_events), max_bytes_(max_bytes) {}

  // Event `seq` (increasing, gaps allowed) as its frame; the oldest are
  // dropped past either bound.
  void add(uint64_t seq, std::string frame);

  struct Replay {
    std::vector<std::string> frames;  // every kept event after the given one
    bool complete = true;             // false: some after it were already dropped
  };
  // `below`: only events numbered below it (frames still held back).
  Replay after(uint64_t seq, uint64_t below = UINT64_MAX) const;
  // Every kept event, oldest first (a session written to Redis); add() them
  // back in that order to restore.
  std::vector<std::pair<uint64_t, std::string>> entries() const;

  size_t size() const { return events_.size(); }
  size_t bytes() const { return bytes_; }

 private:
  struct Entry {
    uint64_t seq;
    std::string frame;
  };
  size_t max_events_;
  size_t max_bytes_;
  std::deque<Entry> events_;
  size_t bytes_ = 0;
  uint64_t dropped_through_ = 0;  // highest seq dropped (0: none)
};

}  // namespace toolwire::gateway::conductor
