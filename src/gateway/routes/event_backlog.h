// The bound on stream events that wait to cross from an upstream's thread to
// the connection's.
//
// A transport with its own thread (the curl transport's loop) decodes events
// there and posts each to the connection's thread. The client's flow control
// (StreamRelay's on_behind) sees an event only once it is handled there, so
// with nothing else a fast upstream outruns a busy connection thread:
// megabytes wait in its queue, then land in the client's write queue at once
// and past its hard limit. EventBacklog counts the bytes posted and not yet
// handled and pauses the upstream, from the producing thread, past a bound.
// It also holds the client's own pause: the call is paused while either
// wants it, and resumed only when neither does.
#pragma once

#include <cstddef>
#include <mutex>

#include "toolwire/ir/stream.h"
#include "toolwire/provider/provider.h"

namespace toolwire::gateway::routes {

class EventBacklog {
 public:
  explicit EventBacklog(size_t limit) : limit_(limit) {}

  // The call to pause and resume, once it has started (connection thread).
  void attach(provider::ProviderCall call);
  // The client is behind (true) or has caught up (connection thread).
  void set_client_paused(bool paused);
  // An event of `bytes` was posted (producing thread) / handled (connection thread).
  void posted(size_t bytes);
  void handled(size_t bytes);

  // What an event weighs in the backlog: its text, plus its copy and post.
  static size_t bytes_of(const ir::StreamEvent& e);

 private:
  void apply();  // with mu_ held

  std::mutex mu_;
  provider::ProviderCall call_;
  bool attached_ = false;
  bool client_paused_ = false;
  bool full_ = false;     // past the limit; cleared at half of it
  bool applied_ = false;  // what the call was last told
  size_t bytes_ = 0;
  const size_t limit_;
};

}  // namespace toolwire::gateway::routes
