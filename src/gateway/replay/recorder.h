// `record:` — an HttpTransport in front of the real one that writes every
// upstream exchange it completes into a folder (recording.h's format),
// passing every byte through unchanged. Requests that fail in transit
// (reset, timeout, cancelled) are not recorded: replayed, they would claim
// an answer the upstream never gave.
//
//   auto rec = replay::Recorder::open(client, "recordings/");
//   auto provider = make_http_provider(profile, cfg, **rec);
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>

#include "gateway/replay/recording.h"
#include "toolwire/core/result.h"
#include "toolwire/transport/http_client.h"

namespace toolwire::gateway::replay {

class Recorder final : public transport::HttpTransport {
 public:
  // Creates `dir` if needed; files already there are kept and numbered after.
  static Result<std::unique_ptr<Recorder>> open(transport::HttpTransport& inner, std::string dir);

  transport::HttpCall start(transport::HttpRequest request,
                            transport::HttpCallbacks callbacks) override;

  struct Tape;  // one call's exchange as it arrives

 private:
  Recorder(transport::HttpTransport& inner, std::string dir, uint64_t next);
  // Writes the file (a temporary name, then renamed: never half a file).
  // Record mode is for making fixtures, so the write is done where the
  // exchange ends; a failed write is logged to stderr, the answer unharmed.
  void save(const Exchange& e);

  transport::HttpTransport& inner_;
  std::string dir_;
  std::mutex mu_;
  uint64_t next_;  // the next file's number, under mu_
};

}  // namespace toolwire::gateway::replay
