// toolwire/redis/client.h — an asynchronous Redis client on the caller's
// io_context.
//
//   auto redis = redis::Client::create(gateway.io_context(), {.url = *url, .log = log});
//   redis->start();                                 // connects, and reconnects with backoff
//   redis->command({"INCR", "k"}, [](Result<redis::Reply> r) { ... });
//   redis->stop();                                  // before the io_context stops
//
// hiredis's async API (Debian's libhiredis) parses RESP; its socket is
// watched by the io_context (asio::posix::stream_descriptor), so the client
// has no thread of its own. Its work runs on one strand: command() may be
// called from any thread, and every callback runs on that strand, exactly
// once, and must not block (post back to your own strand). Commands given
// while others wait are written together (pipelining): one connection, in
// order.
//
// Nothing waits without a deadline: a command that is not connected fails
// at once (`unavailable`); one whose reply takes longer than
// `command_timeout` fails with `deadline_exceeded`, and since replies come
// in order, so does everything queued behind it, and the connection is
// dropped and made again (a server that stops answering is a dead one).
// A Redis error reply is a Reply of type `error`, not a failed Result.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "toolwire/core/result.h"
#include "toolwire/redis/url.h"

namespace boost::asio {
class io_context;
}

namespace toolwire::redis {

// One reply, owned (hiredis's is freed when its callback returns).
struct Reply {
  enum class Type { nil, integer, string, status, array, error };
  Type type = Type::nil;
  long long integer = 0;
  std::string str;  // string, status and error replies
  std::vector<Reply> elements;
  bool is_error() const { return type == Type::error; }
};

using Callback = std::function<void(Result<Reply>)>;

struct ClientOptions {
  Url url;
  std::chrono::milliseconds command_timeout{500};
  std::chrono::milliseconds connect_timeout{1000};
  std::chrono::milliseconds backoff_min{100};  // after a failed connect, doubling up to max
  std::chrono::milliseconds backoff_max{5000};
  // Connection state changes and failures; never a command's arguments.
  std::function<void(std::string_view)> log;
};

class Client {
 public:
  static std::shared_ptr<Client> create(boost::asio::io_context& ioc, ClientOptions options);
  virtual ~Client() = default;

  virtual void start() = 0;
  // Closes the connection; waiting commands fail with `cancelled`. Waits
  // (at most a second) until that is done when called off the io_context's
  // threads; later commands fail at once.
  virtual void stop() = 0;
  virtual bool connected() const = 0;
  // `argv`: the command and its arguments, binary-safe.
  virtual void command(std::vector<std::string> argv, Callback done) = 0;

  // Counters for metrics.
  struct Stats {
    uint64_t commands = 0;
    uint64_t failed = 0;  // unavailable, deadline or dropped (not error replies)
    uint64_t timeouts = 0;
    uint64_t connects = 0;
    uint64_t disconnects = 0;
  };
  virtual Stats stats() const = 0;
};

}  // namespace toolwire::redis
