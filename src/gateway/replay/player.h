// `replay:` — an HttpTransport that answers from a recording folder and
// never opens a socket. A request is matched by its normalised key
// (normalize.h); the n-th identical request gets the n-th recorded answer
// (the last one again after that). The answer is the recorded status,
// headers and body bytes, chunk by chunk — at the recorded times with
// `pacing`, else as fast as the caller takes them. A request that matches
// nothing fails as a transport error (the gateway answers 502 in the
// caller's dialect) whose message names the nearest recorded request and
// where it differs.
//
// Callbacks run on the player's one thread (as HttpClient's run on its
// loop thread); the gateway hands them to the connection's strand.
#pragma once

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "gateway/replay/normalize.h"
#include "gateway/replay/recording.h"
#include "toolwire/core/result.h"
#include "toolwire/transport/http_client.h"

namespace toolwire::gateway::replay {

class Player final : public transport::HttpTransport {
 public:
  // Loads every recording of `dir`; a malformed file is an error.
  static Result<std::unique_ptr<Player>> open(const std::string& dir, bool pacing);
  Player(std::vector<Exchange> tapes, std::string dir, bool pacing);
  // Calls still playing end without callbacks (the gateway has waited for them).
  ~Player() override;

  transport::HttpCall start(transport::HttpRequest request,
                            transport::HttpCallbacks callbacks) override;

  // The answer to a request with this key, or why there is none.
  Result<const Exchange*> find(const RequestKey& key);

  struct Play;

 private:
  std::vector<Exchange> tapes_;
  std::vector<RequestKey> keys_;
  std::map<std::string, std::vector<size_t>> by_key_;  // key text → tapes, in order
  std::string dir_;
  bool pacing_;
  std::mutex mu_;
  std::map<std::string, size_t> played_;  // key text → answers given, under mu_
  uint64_t next_id_ = 1;                  // under mu_
  boost::asio::io_context ioc_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_;
  std::thread thread_;
};

}  // namespace toolwire::gateway::replay
