// Gateway: the io_context and its fixed thread pool, the acceptor, the set
// of open sessions (for draining on stop), and the shared route context.
#include "toolwire/gateway/gateway.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>

#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>

#include "gateway/conductor/conductor.h"
#include "gateway/http/session.h"
#include "gateway/routes/context.h"
#include "gateway/routes/mcp_endpoint.h"
#include "gateway/routes/router.h"
#include "gateway/tls/server_context.h"

namespace toolwire::gateway {

namespace asio = boost::asio;
using asio::ip::tcp;
using boost::system::error_code;

struct Gateway::Impl {
  explicit Impl(GatewayOptions opt, std::shared_ptr<const ModelRouter> router)
      : ctx(std::make_shared<routes::RouteContext>()),
        ioc(opt.threads > 0 ? opt.threads
                            : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()))),
        acceptor(asio::make_strand(ioc)),
        accept_backoff(acceptor.get_executor()),
        drain_timer(acceptor.get_executor()) {
    if (!opt.log)
      opt.log = [](std::string_view line) {
        std::fprintf(stderr, "toolwire serve: %.*s\n", static_cast<int>(line.size()), line.data());
      };
    ctx->tool_executors =
        std::make_unique<routes::ToolExecutors>(static_cast<size_t>(std::max(1, opt.tool_threads)));
    ctx->options = std::move(opt);
    ctx->response_store.set_limits(ctx->options.response_store.max_responses,
                                   ctx->options.response_store.max_bytes);
    ctx->router = std::move(router);
    if (!ctx->options.shared.redis_url.empty())
      ctx->shared =
          std::make_shared<shared_state::SharedState>(ioc, ctx->options.shared, ctx->options.log);
    ctx->conductor = std::make_shared<conductor::Conductor>(*ctx);
    ctx->mcp = std::make_shared<routes::McpEndpoint>(*ctx);
    auto sc = std::make_shared<http::SessionContext>();
    sc->limits = ctx->options.limits;
    sc->handler = routes::make_router(ctx);
    sc->protocol_error = routes::make_protocol_error_writer();
    sc->on_slow_client = [c = ctx.get()] { c->metrics.slow_client_cut(); };
    sessions_ctx = sc;
  }

  ~Impl() {
    if (reserve_fd >= 0) ::close(reserve_fd);
    // Its timers and socket belong to the io_context, declared after ctx:
    // they go first (handlers still queued hold the rest, and die with it).
    ctx->shared.reset();
  }

  void accept() {
    acceptor.async_accept(asio::make_strand(ioc), [this](error_code ec, http::Socket socket) {
      if (ec) {
        if (ec == asio::error::operation_aborted || !acceptor.is_open()) return;
        if (ec.value() == EMFILE || ec.value() == ENFILE || ec.value() == ENOBUFS ||
            ec.value() == ENOMEM)
          return out_of_descriptors(ec);
        return accept();  // the peer gave up before we took it (ECONNABORTED...)
      }
      error_code ep_ec;
      auto peer = socket.remote_endpoint(ep_ec).address();
      const Limits& l = ctx->options.limits;
      if (static_cast<size_t>(ctx->metrics.connections()) >= l.max_connections) {
        ctx->metrics.connection_refused(Metrics::Refused::max_connections);
        error_code ignored;
        socket.close(ignored);  // over the limit: refused at once, costs nothing
        return accept();
      }
      if (l.max_connections_per_address > 0 && !ep_ec && !take_address_slot(peer)) {
        ctx->metrics.connection_refused(Metrics::Refused::per_address);
        error_code ignored;
        socket.close(ignored);
        return accept();
      }
      open(std::move(socket), ep_ec ? std::nullopt : std::optional(peer));
      accept();
    });
  }

  // Descriptors ran out (as nginx does): the connection waiting in the
  // backlog is taken with the reserve descriptor and closed, so its client
  // gets an answer instead of a hang, and accepting pauses a while instead of
  // spinning on the same error.
  void out_of_descriptors(error_code ec) {
    ctx->metrics.connection_refused(Metrics::Refused::descriptors);
    if (reserve_fd >= 0) {
      ::close(reserve_fd);
      reserve_fd = -1;
      error_code ignored;
      acceptor.non_blocking(true, ignored);
      tcp::socket s(ioc);
      acceptor.accept(s, ignored);
      s.close(ignored);
      acceptor.non_blocking(false, ignored);
      reserve_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    }
    auto now = std::chrono::steady_clock::now();
    if (now - last_fd_notice >= std::chrono::seconds(10)) {
      last_fd_notice = now;
      ctx->log("out of file descriptors (" + ec.message() + ") with " +
               std::to_string(ctx->metrics.connections()) +
               " connections open: refusing new ones for a while (raise ulimit -n or lower "
               "limits.max_connections)");
    }
    accept_backoff.expires_after(std::chrono::milliseconds(100));
    accept_backoff.async_wait([this](error_code e) {
      if (!e && acceptor.is_open()) accept();
    });
  }

  bool take_address_slot(const asio::ip::address& a) {
    std::lock_guard lock(mu);
    size_t& n = per_address[a];
    if (n >= ctx->options.limits.max_connections_per_address) {
      if (n == 0) per_address.erase(a);
      return false;
    }
    ++n;
    return true;
  }

  void release_address_slot(const asio::ip::address& a) {
    std::lock_guard lock(mu);
    auto it = per_address.find(a);
    if (it != per_address.end() && --it->second == 0) per_address.erase(it);
  }

  // Raises the descriptor limit to its hard limit and derives
  // max_connections from it when not configured: each client connection may
  // hold an upstream socket too, and the process keeps some for itself.
  void size_connections() {
    rlimit rl{};
    size_t soft = 1024;
    if (::getrlimit(RLIMIT_NOFILE, &rl) == 0) {
      rlim_t want = std::min<rlim_t>(rl.rlim_max, rlim_t{1} << 20);
      if (rl.rlim_cur < want) {
        rlimit raised = rl;
        raised.rlim_cur = want;
        if (::setrlimit(RLIMIT_NOFILE, &raised) == 0) rl = raised;
      }
      soft = rl.rlim_cur == RLIM_INFINITY ? (size_t{1} << 20) : static_cast<size_t>(rl.rlim_cur);
    }
    constexpr size_t kKept = 64;  // listener, tool files, MCP servers, logs...
    size_t budget = soft > kKept + 32 ? (soft - kKept) / 2 : 16;
    Limits& l = ctx->options.limits;
    if (l.max_connections == 0) {
      l.max_connections = std::min<size_t>(10'000, budget);
    } else if (l.max_connections > budget) {
      ctx->log("limits.max_connections " + std::to_string(l.max_connections) + " exceeds what " +
               std::to_string(soft) +
               " file descriptors (ulimit -n) can serve with upstream sockets (" +
               std::to_string(budget) + "): past it, connections are refused with backoff");
    }
    if (reserve_fd < 0) reserve_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  }

  void open(http::Socket socket, std::optional<asio::ip::address> peer) {
    ctx->metrics.connection_opened();
    auto sc = std::make_shared<http::SessionContext>(*sessions_ctx);
    uint64_t id = next_id++;
    sc->on_end = [this, id, peer] {
      if (peer && ctx->options.limits.max_connections_per_address > 0) release_address_slot(*peer);
      closed(id);
    };
    auto s =
        tls ? std::make_shared<http::Session>(http::Stream(std::move(socket), tls->current()), sc)
            : std::make_shared<http::Session>(http::Stream(std::move(socket)), sc);
    {
      std::lock_guard lock(mu);
      sessions.emplace(id, s);
    }
    s->start();
  }

  void closed(uint64_t id) {
    ctx->metrics.connection_closed();
    std::lock_guard lock(mu);
    sessions.erase(id);
    if (stopping && sessions.empty()) cv.notify_all();
  }

  std::vector<std::shared_ptr<http::Session>> live_sessions() {
    std::vector<std::shared_ptr<http::Session>> out;
    std::lock_guard lock(mu);
    for (auto& [id, w] : sessions)
      if (auto s = w.lock()) out.push_back(std::move(s));
    return out;
  }

  // Declared before the io_context: handlers it destroys may still end
  // sessions, which touch these.
  std::shared_ptr<routes::RouteContext> ctx;
  std::shared_ptr<const http::SessionContext> sessions_ctx;
  std::mutex mu;
  std::condition_variable cv;
  std::unordered_map<uint64_t, std::weak_ptr<http::Session>> sessions;
  std::map<asio::ip::address, size_t> per_address;  // open connections by client address
  int reserve_fd = -1;                              // given up to take one connection on EMFILE
  std::unique_ptr<tls::ServerContext> tls;          // set when TLS is configured
  std::chrono::steady_clock::time_point last_fd_notice{};
  uint64_t next_id = 1;
  bool started = false;
  bool stopping = false;
  bool joined = false;
  uint16_t port = 0;

  asio::io_context ioc;
  tcp::acceptor acceptor;
  asio::steady_timer accept_backoff;
  asio::steady_timer drain_timer;
  std::vector<std::thread> threads;
};

Gateway::Gateway(GatewayOptions options, std::shared_ptr<const ModelRouter> router)
    : impl_(std::make_unique<Impl>(std::move(options), std::move(router))) {}

Gateway::Gateway(GatewayOptions options) : Gateway(std::move(options), nullptr) {}

void Gateway::set_router(std::shared_ptr<const ModelRouter> router) {
  impl_->ctx->router = std::move(router);
}

asio::io_context& Gateway::io_context() { return impl_->ioc; }

void Gateway::set_mcp_tools(std::shared_ptr<const tools::Registry> registry) {
  impl_->ctx->mcp->set_tools(std::move(registry));
}

void Gateway::set_keys(std::shared_ptr<const KeyRing> keys) { impl_->ctx->keys = std::move(keys); }

void Gateway::set_traces(std::shared_ptr<telemetry::TraceStore> store) {
  impl_->ctx->traces = std::move(store);
}

void Gateway::set_otlp(std::shared_ptr<telemetry::OtlpExporter> exporter) {
  impl_->ctx->otlp = std::move(exporter);
}

Gateway::~Gateway() {
  stop();
  wait();
}

Status Gateway::start() {
  auto& I = *impl_;
  if (!I.ctx->router)
    return make_error(ErrorCode::failed_precondition, "gateway started without a router");
  error_code ec;
  auto addr = asio::ip::make_address(I.ctx->options.host, ec);
  if (ec)
    return make_error(ErrorCode::invalid_argument,
                      "bad listen address '" + I.ctx->options.host + "'");
  tcp::endpoint ep(addr, I.ctx->options.port);
  if (I.ctx->options.tls.enabled()) {
    I.tls = std::make_unique<tls::ServerContext>(I.ctx->options.tls);
    TW_TRY(I.tls->reload());
  }
  I.size_connections();
  I.acceptor.open(ep.protocol(), ec);
  if (!ec) I.acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) I.acceptor.bind(ep, ec);
  if (!ec) I.acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec)
    return make_error(ErrorCode::unavailable, "cannot listen on " + I.ctx->options.host + ":" +
                                                  std::to_string(I.ctx->options.port) + ": " +
                                                  ec.message());
  I.port = I.acceptor.local_endpoint().port();
  I.started = true;
  if (I.ctx->shared) I.ctx->shared->start();
  I.ctx->ready = true;
  asio::post(I.acceptor.get_executor(), [&I] { I.accept(); });
  int n = I.ctx->options.threads > 0
              ? I.ctx->options.threads
              : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  for (int i = 0; i < n; ++i) I.threads.emplace_back([&I] { I.ioc.run(); });
  return Status::Ok();
}

uint16_t Gateway::port() const { return impl_->port; }

bool Gateway::tls() const { return impl_->ctx->options.tls.enabled(); }

Status Gateway::reload_tls() {
  if (!impl_->tls) return make_error(ErrorCode::failed_precondition, "TLS is not configured");
  return impl_->tls->reload();
}

void Gateway::stop() {
  auto& I = *impl_;
  {
    std::lock_guard lock(I.mu);
    if (!I.started || I.stopping) return;
    I.stopping = true;
  }
  I.ctx->ready = false;
  I.ctx->conductor->shutdown();  // WebSocket connections are no HTTP sessions to drain
  I.ctx->mcp->shutdown();        // waiting MCP calls are cancelled and answered
  // Stop accepting; ask every session to finish its current answer.
  asio::post(I.acceptor.get_executor(), [&I] {
    error_code ignored;
    I.acceptor.close(ignored);
    I.accept_backoff.cancel();
    for (auto& s : I.live_sessions()) asio::post(s->executor(), [s] { s->drain(); });
    I.drain_timer.expires_after(I.ctx->options.drain_deadline);
    I.drain_timer.async_wait([&I](error_code ec) {
      if (ec) return;
      for (auto& s : I.live_sessions()) asio::post(s->executor(), [s] { s->close(); });
    });
  });
}

void Gateway::wait() {
  auto& I = *impl_;
  if (!I.started || I.joined) return;
  {
    std::unique_lock lock(I.mu);
    I.cv.wait(lock, [&] { return I.stopping && I.sessions.empty(); });
  }
  // Conductor devices get their close frames (1001) and cancelled turns
  // report back before the io_context stops.
  if (!I.ctx->conductor->wait_closed(I.ctx->options.drain_deadline))
    I.ctx->log("conductor: connections or turns still open at shutdown");
  // Upstream calls cancelled with their sessions still report back (posting
  // to this io_context); let them before the executor goes away.
  I.ctx->upstream_calls.wait_idle(std::chrono::seconds(5));
  // Redis: its socket and timers closed while the io_context still runs.
  if (I.ctx->shared) I.ctx->shared->stop();
  I.ioc.stop();
  for (auto& t : I.threads) t.join();
  // Tool handlers still running were cancelled with their sessions.
  I.ctx->tool_executors->join();
  I.ctx->mcp->join();
  I.joined = true;
}

std::string Gateway::metrics_text() const { return impl_->ctx->metrics.text(); }

}  // namespace toolwire::gateway
