// toolwire/transport/asio_client.h — an HTTP/1.1 client on an io_context the
// caller runs (the gateway's), with no thread of its own.
//
// It keeps HttpClient's contract (http_types.h: retries only before the head
// is shown, deadline, idle timeout, connect timeout, cancellation from any
// thread, messages without secrets) and trades its reach (no HTTP/2, no
// proxy) for cost: a request on a pooled keep-alive connection is a write
// and a few reads on the server's own threads — no hand-off to another
// thread, no per-transfer setup. Callbacks of one call run one at a time on
// that call's strand.
//
//   boost::asio::io_context ioc;
//   transport::AsioHttpClient client(ioc);
//   HttpCall call = client.start(std::move(req), callbacks);   // any thread
//
// TLS peers are verified against the system CA store (or ca_file), with SNI
// and host name checks.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "toolwire/transport/http_client.h"

namespace boost::asio {
class io_context;
}

namespace toolwire::transport {

struct AsioClientOptions {
  std::string ca_file;  // "" = system CA store
  std::string user_agent = "toolwire/0.1";
  size_t max_idle_per_host = 1024;  // pooled keep-alive connections per scheme://host:port
  std::chrono::milliseconds idle_keep{
      std::chrono::seconds(50)};  // a pooled connection unused this long is closed
  size_t receive_buffer = 16384;  // bytes read per body read
  uint64_t jitter_seed = 0;       // 0 = random
  // Every io_context this client's calls run on (its own, and those of the
  // executors StrandScope hands it) is run by exactly one thread, as the
  // gateway's workers are: a call then runs on that io_context's executor as
  // it is, without a strand of its own (a strand there only adds a lock and
  // a queue to every handler). Leave false for an io_context that several
  // threads run.
  bool one_thread_contexts = false;
};

// Calls started on this thread while a scope is alive run their I/O and
// callbacks on `strand` (a serialised executor of the same io_context)
// instead of a strand of their own. The gateway starts each upstream call
// inside one, with the client connection's strand: the upstream's bytes are
// then translated and written to the client without a hand-off.
class StrandScope {
 public:
  explicit StrandScope(boost::asio::any_io_executor strand);
  ~StrandScope();
  StrandScope(const StrandScope&) = delete;
  StrandScope& operator=(const StrandScope&) = delete;

 private:
  boost::asio::any_io_executor previous_;
};

class AsioHttpClient final : public HttpTransport {
 public:
  explicit AsioHttpClient(boost::asio::io_context& ioc, AsioClientOptions options = {});
  // Calls still running get `cancelled`; the io_context must still exist.
  ~AsioHttpClient() override;
  AsioHttpClient(const AsioHttpClient&) = delete;
  AsioHttpClient& operator=(const AsioHttpClient&) = delete;

  HttpCall start(HttpRequest request, HttpCallbacks callbacks) override;

  size_t active_calls() const;
  size_t idle_connections() const;

  struct Impl;

 private:
  std::shared_ptr<Impl> impl_;
};

}  // namespace toolwire::transport
