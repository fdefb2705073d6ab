// Gateway: the io_context and its fixed thread pool, the acceptor, the set
// of open sessions (for draining on stop), and the shared route context.
#include "toolwire/server/gateway.h"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "server/conductor/conductor.h"
#include "server/http/session.h"
#include "server/routes/context.h"
#include "server/routes/mcp_endpoint.h"
#include "server/routes/router.h"

namespace toolwire::server {

namespace asio = boost::asio;
using asio::ip::tcp;
using boost::system::error_code;

struct Gateway::Impl {
  explicit Impl(GatewayOptions opt, std::shared_ptr<const ModelRouter> router)
      : ctx(std::make_shared<routes::RouteContext>()),
        ioc(opt.threads > 0 ? opt.threads
                            : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()))),
        acceptor(asio::make_strand(ioc)),
        drain_timer(acceptor.get_executor()) {
    if (!opt.log)
      opt.log = [](std::string_view line) {
        std::fprintf(stderr, "toolwire serve: %.*s\n", static_cast<int>(line.size()), line.data());
      };
    ctx->tool_pool = std::make_unique<asio::thread_pool>(std::max(1, opt.tool_threads));
    ctx->options = std::move(opt);
    ctx->responses.set_limits(ctx->options.response_store.max_responses,
                              ctx->options.response_store.max_bytes);
    ctx->router = std::move(router);
    ctx->conductor = std::make_shared<conductor::Conductor>(*ctx);
    ctx->mcp = std::make_shared<routes::McpEndpoint>(*ctx);
    auto sc = std::make_shared<http::SessionContext>();
    sc->limits = ctx->options.limits;
    sc->handler = routes::make_router(ctx);
    sc->protocol_error = routes::make_protocol_error_writer();
    sc->on_slow_client = [c = ctx.get()] { c->metrics.slow_client_cut(); };
    sessions_ctx = sc;
  }

  void accept() {
    acceptor.async_accept(asio::make_strand(ioc), [this](error_code ec, http::Socket socket) {
      if (ec) {
        if (ec == asio::error::operation_aborted || !acceptor.is_open()) return;
        return accept();  // e.g. EMFILE: try again with the next connection
      }
      if (static_cast<size_t>(ctx->metrics.connections()) >= ctx->options.limits.max_connections) {
        error_code ignored;
        socket.close(ignored);  // over the limit: refused at once, costs nothing
        return accept();
      }
      open(std::move(socket));
      accept();
    });
  }

  void open(http::Socket socket) {
    ctx->metrics.connection_opened();
    auto sc = std::make_shared<http::SessionContext>(*sessions_ctx);
    uint64_t id = next_id++;
    sc->on_end = [this, id] { closed(id); };
    auto s = std::make_shared<http::Session>(std::move(socket), sc);
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
  uint64_t next_id = 1;
  bool started = false;
  bool stopping = false;
  bool joined = false;
  uint16_t port = 0;

  asio::io_context ioc;
  tcp::acceptor acceptor;
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
  I.ctx->ready = true;
  asio::post(I.acceptor.get_executor(), [&I] { I.accept(); });
  int n = I.ctx->options.threads > 0
              ? I.ctx->options.threads
              : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  for (int i = 0; i < n; ++i) I.threads.emplace_back([&I] { I.ioc.run(); });
  return Status::Ok();
}

uint16_t Gateway::port() const { return impl_->port; }

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
  I.ioc.stop();
  for (auto& t : I.threads) t.join();
  // Tool handlers still running were cancelled with their sessions.
  I.ctx->tool_pool->join();
  I.ctx->mcp->join();
  I.joined = true;
}

std::string Gateway::metrics_text() const { return impl_->ctx->metrics.text(); }

}  // namespace toolwire::server
