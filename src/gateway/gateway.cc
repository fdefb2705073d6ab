// Gateway: one worker per thread (its own io_context, run by that thread
// alone, and its own acceptor on the shared port with SO_REUSEPORT), the set
// of open sessions (for draining on stop), and the shared route context.
//
// A connection lives on the worker whose acceptor the kernel gave it to:
// its reads, its upstream call (on that worker's pool of upstream
// connections) and its writes run on one thread, with no strand and no
// hand-off between threads. Worker 0 also runs what belongs to the gateway as
// a whole (Redis, the drain deadline).
#include "toolwire/gateway/gateway.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>

#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>

#include "gateway/conductor/conductor.h"
#include "gateway/http/handler_flush.h"
#include "gateway/http/session.h"
#include "gateway/routes/context.h"
#include "gateway/routes/mcp_endpoint.h"
#include "gateway/routes/router.h"
#include "gateway/tls/server_context.h"

namespace toolwire::gateway {

namespace asio = boost::asio;
using asio::ip::tcp;
using boost::system::error_code;

namespace {

// One server thread and everything only it touches.
struct Worker {
  // Concurrency hint 1: this io_context is run by one thread (other threads
  // only post to it), so Asio takes its single-thread paths.
  Worker() : ioc(1), acceptor(ioc), accept_backoff(ioc), keep(asio::make_work_guard(ioc)) {}
  asio::io_context ioc;
  tcp::acceptor acceptor;
  asio::steady_timer accept_backoff;
  // Runs until wait(): a worker with no connection for a while must still be
  // there for what other threads post to it later.
  asio::executor_work_guard<asio::io_context::executor_type> keep;
  std::thread thread;
};

int thread_count(const GatewayOptions& opt) {
  return opt.threads > 0 ? opt.threads
                         : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

}  // namespace

struct Gateway::Impl {
  explicit Impl(GatewayOptions opt, std::shared_ptr<const ModelRouter> router)
      : ctx(std::make_shared<routes::RouteContext>()) {
    for (int i = 0, n = thread_count(opt); i < n; ++i)
      workers.push_back(std::make_unique<Worker>());
    drain_timer.emplace(workers.front()->ioc);
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
      ctx->shared = std::make_shared<shared_state::SharedState>(
          workers.front()->ioc, ctx->options.shared, ctx->options.log);
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

  void accept(Worker& w) {
    w.acceptor.async_accept(w.ioc.get_executor(), [this, &w](error_code ec, http::Socket socket) {
      if (ec) {
        if (ec == asio::error::operation_aborted || !w.acceptor.is_open()) return;
        if (ec.value() == EMFILE || ec.value() == ENFILE || ec.value() == ENOBUFS ||
            ec.value() == ENOMEM)
          return out_of_descriptors(w, ec);
        return accept(w);  // the peer gave up before we took it (ECONNABORTED...)
      }
      error_code ep_ec;
      auto peer = socket.remote_endpoint(ep_ec).address();
      const Limits& l = ctx->options.limits;
      if (static_cast<size_t>(ctx->metrics.connections()) >= l.max_connections) {
        ctx->metrics.connection_refused(Metrics::Refused::max_connections);
        error_code ignored;
        socket.close(ignored);  // over the limit: refused at once, costs nothing
        return accept(w);
      }
      if (l.max_connections_per_address > 0 && !ep_ec && !take_address_slot(peer)) {
        ctx->metrics.connection_refused(Metrics::Refused::per_address);
        error_code ignored;
        socket.close(ignored);
        return accept(w);
      }
      open(std::move(socket), ep_ec ? std::nullopt : std::optional(peer));
      accept(w);
    });
  }

  // Descriptors ran out (as nginx does): the connection waiting in the
  // backlog is taken with the reserve descriptor and closed, so its client
  // gets an answer instead of a hang, and accepting pauses a while instead of
  // spinning on the same error.
  void out_of_descriptors(Worker& w, error_code ec) {
    ctx->metrics.connection_refused(Metrics::Refused::descriptors);
    std::unique_lock lock(fd_mu);  // the reserve is one for all workers
    if (reserve_fd >= 0) {
      ::close(reserve_fd);
      reserve_fd = -1;
      error_code ignored;
      w.acceptor.non_blocking(true, ignored);
      tcp::socket s(w.ioc);
      w.acceptor.accept(s, ignored);
      s.close(ignored);
      w.acceptor.non_blocking(false, ignored);
      reserve_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    }
    auto now = std::chrono::steady_clock::now();
    if (now - last_fd_notice >= std::chrono::seconds(10)) {
      last_fd_notice = now;
      lock.unlock();
      ctx->log("out of file descriptors (" + ec.message() + ") with " +
               std::to_string(ctx->metrics.connections()) +
               " connections open: refusing new ones for a while (raise ulimit -n or lower "
               "limits.max_connections)");
    }
    w.accept_backoff.expires_after(std::chrono::milliseconds(100));
    w.accept_backoff.async_wait([this, &w](error_code e) {
      if (!e && w.acceptor.is_open()) accept(w);
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
  std::mutex fd_mu;                                 // reserve_fd, last_fd_notice
  int reserve_fd = -1;                              // given up to take one connection on EMFILE
  std::unique_ptr<tls::ServerContext> tls;          // set when TLS is configured
  std::chrono::steady_clock::time_point last_fd_notice{};
  uint64_t next_id = 1;
  bool started = false;
  bool stopping = false;
  bool joined = false;
  uint16_t port = 0;

  std::vector<std::unique_ptr<Worker>> workers;
  std::optional<asio::steady_timer> drain_timer;  // on worker 0
};

Gateway::Gateway(GatewayOptions options, std::shared_ptr<const ModelRouter> router)
    : impl_(std::make_unique<Impl>(std::move(options), std::move(router))) {}

Gateway::Gateway(GatewayOptions options) : Gateway(std::move(options), nullptr) {}

void Gateway::set_router(std::shared_ptr<const ModelRouter> router) {
  impl_->ctx->router = std::move(router);
}

asio::io_context& Gateway::io_context() { return impl_->workers.front()->ioc; }

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
  // One listening socket per worker on the same port (SO_REUSEPORT): the
  // kernel spreads new connections over them, and no accept wakes a thread
  // that does not get the connection. The first binds the port (maybe 0,
  // any free one); the others join it.
  const bool shared_port = I.workers.size() > 1;
  for (auto& w : I.workers) {
    tcp::acceptor& a = w->acceptor;
    a.open(ep.protocol(), ec);
    if (!ec) a.set_option(asio::socket_base::reuse_address(true), ec);
    if (!ec && shared_port) {
      int one = 1;
      if (::setsockopt(a.native_handle(), SOL_SOCKET, SO_REUSEPORT, &one, sizeof one) != 0)
        ec.assign(errno, boost::system::system_category());
    }
    if (!ec) a.bind(ep, ec);
    if (!ec) a.listen(asio::socket_base::max_listen_connections, ec);
    if (ec) {
      for (auto& o : I.workers) o->acceptor.close(ec);
      return make_error(ErrorCode::unavailable, "cannot listen on " + I.ctx->options.host + ":" +
                                                    std::to_string(I.ctx->options.port) + ": " +
                                                    ec.message());
    }
    ep.port(a.local_endpoint().port());
  }
  I.port = ep.port();
  I.started = true;
  if (I.ctx->shared) I.ctx->shared->start();
  I.ctx->ready = true;
  for (auto& w : I.workers) {
    Worker* wp = w.get();
    asio::post(wp->ioc, [&I, wp] { I.accept(*wp); });
    wp->thread = std::thread([wp] { http::HandlerFlush::run(wp->ioc); });
  }
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
  // Stop accepting (each worker closes its own acceptor); once the last one
  // has, no session can start any more: ask every session to finish its
  // current answer.
  auto open_acceptors = std::make_shared<std::atomic<size_t>>(I.workers.size());
  for (auto& w : I.workers)
    asio::post(w->ioc, [&I, wp = w.get(), open_acceptors] {
      error_code ignored;
      wp->acceptor.close(ignored);
      wp->accept_backoff.cancel();
      if (open_acceptors->fetch_sub(1) != 1) return;
      asio::post(I.workers.front()->ioc, [&I] {
        for (auto& s : I.live_sessions()) asio::post(s->executor(), [s] { s->drain(); });
        I.drain_timer->expires_after(I.ctx->options.drain_deadline);
        I.drain_timer->async_wait([&I](error_code ec) {
          if (ec) return;
          for (auto& s : I.live_sessions()) asio::post(s->executor(), [s] { s->close(); });
        });
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
  for (auto& w : I.workers) w->ioc.stop();
  for (auto& w : I.workers)
    if (w->thread.joinable()) w->thread.join();
  // Tool handlers still running were cancelled with their sessions.
  I.ctx->tool_executors->join();
  I.ctx->mcp->join();
  I.joined = true;
}

std::string Gateway::metrics_text() const { return impl_->ctx->metrics.text(); }

}  // namespace toolwire::gateway
