// Arbitrary bytes as the request stream of one client connection to a real
// Gateway: the HTTP/1.1 reader (Beast parser, limits, pipelining, chunked
// bodies), the router, the codecs' request decoders and the answer path,
// whole and streamed, in both dialects.
//
// One Gateway is started once, on 127.0.0.1 port 0, in front of a provider
// that answers every call at once. Per input: connect, write the bytes, shut
// the write side, and read until the server closes the connection. The
// server must close within a bound (a hang is a bug: every input ends with
// EOF, so no deadline needs to pass) and must still answer GET /health.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#include "toolwire/gateway/gateway.h"
#include "toolwire/gateway/routing.h"
#include "toolwire/ir/accumulator.h"

namespace {

using namespace toolwire;

class InstantProvider final : public provider::Provider {
 public:
  std::string_view name() const override { return "instant"; }
  const provider::Capabilities& capabilities() const override { return caps_; }
  provider::ProviderCall generate(ir::Request r, provider::DoneCallback done) override {
    return stream(std::move(r), nullptr, std::move(done));
  }
  provider::ProviderCall stream(ir::Request r, provider::EventCallback on_event,
                                provider::DoneCallback done) override {
    if (r.model == "fail") {
      done(make_error(ErrorCode::unavailable, "upstream down"));
      return provider::ProviderCall([] {});
    }
    ir::StreamEvent events[] = {
        ir::MessageStart{"msg_1", r.model, 0},
        ir::TextDelta{"hello"},
        ir::ToolCallStart{0, "call_1", "f"},
        ir::ToolCallDelta{0, R"({"a":1})"},
        ir::ToolCallEnd{0},
        ir::UsageEvent{ir::Usage{1, 2, {}, {}}},
        ir::Finish{ir::FinishReason{ir::FinishReason::Kind::tool_calls, "tool_calls"}}};
    ir::StreamAccumulator acc;
    for (const auto& e : events) {
      acc.add(e);
      if (on_event) on_event(e);
    }
    provider::Generation g;
    g.response = std::move(acc).take();
    done(std::move(g));
    return provider::ProviderCall([] {});
  }

 private:
  provider::Capabilities caps_;
};

gateway::Gateway* shared_gateway() {
  static gateway::Gateway* gw = [] {
    auto router = std::make_shared<gateway::PatternRouter>();
    auto* p = router->own(std::make_unique<InstantProvider>());
    // Exact names only: a glob would put every fuzzed model name in /metrics.
    router->add_route(
        {.pattern = "m", .aliases = {"gpt-4o", "claude-x"}, .targets = {{p, "", "i"}}});
    router->add_route({.pattern = "fail", .aliases = {}, .targets = {{p, "", "i"}, {p, "", "j"}}});
    gateway::GatewayOptions opt;
    opt.host = "127.0.0.1";
    opt.port = 0;
    opt.threads = 2;
    opt.limits.max_header_bytes = 8 * 1024;
    opt.limits.max_body_bytes = 256 * 1024;
    opt.limits.header_timeout = std::chrono::milliseconds(2000);
    opt.limits.body_timeout = std::chrono::milliseconds(2000);
    opt.log = [](std::string_view) {};
    auto* g = new gateway::Gateway(opt, router);  // lives until the process exits
    if (!g->start().ok()) std::abort();
    return g;
  }();
  return gw;
}

int connect_to(uint16_t port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  int rc = ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  if (rc != 0 && errno == EINTR) {  // the connection goes on: wait for it
    pollfd p{fd, POLLOUT, 0};
    while (::poll(&p, 1, 5000) < 0 && errno == EINTR) {
    }
    int err = 0;
    socklen_t len = sizeof err;
    ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
    rc = err == 0 ? 0 : -1;
    errno = err;
  }
  if (rc != 0) {
    std::fprintf(stderr, "gateway refused a connection: %s\n", std::strerror(errno));
    std::abort();
  }
  return fd;
}

// Reads until the server closes; false when it has not within `ms`.
// libFuzzer's -timeout alarm (SIGALRM, every few seconds) interrupts poll and
// recv with EINTR: that is no answer from the server, so the wait goes on
// until the deadline.
bool drain_until_closed(int fd, int ms, std::string* out) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::milliseconds(ms);
  char buf[65536];
  for (;;) {
    auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return false;
    pollfd p{fd, POLLIN, 0};
    int n = ::poll(&p, 1, static_cast<int>(left));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    ssize_t got = ::recv(fd, buf, sizeof buf, 0);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return true;
    if (out) out->append(buf, static_cast<size_t>(got));
  }
}

void send_all(int fd, const uint8_t* data, size_t size) {
  while (size > 0) {
    ssize_t n = ::send(fd, data, size, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the server may close first (e.g. after a 431)
    data += n;
    size -= static_cast<size_t>(n);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  gateway::Gateway* gw = shared_gateway();
  int fd = connect_to(gw->port());
  send_all(fd, data, size);
  ::shutdown(fd, SHUT_WR);
  std::string got;
  if (!drain_until_closed(fd, 5000, &got)) {
    sockaddr_in local{};
    socklen_t len = sizeof local;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&local), &len);
    std::fprintf(stderr,
                 "the gateway did not close a connection whose client had finished "
                 "(local port %u, %zu bytes received)\n%s\n%s",
                 ntohs(local.sin_port), got.size(), got.substr(0, 2000).c_str(),
                 gw->metrics_text().c_str());
    std::abort();
  }
  ::close(fd);
  // Still serving.
  static unsigned n = 0;
  if (++n % 16 == 0) {
    fd = connect_to(gw->port());
    static const char kHealth[] = "GET /health HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n";
    send_all(fd, reinterpret_cast<const uint8_t*>(kHealth), sizeof kHealth - 1);
    std::string reply;
    if (!drain_until_closed(fd, 5000, &reply) || reply.rfind("HTTP/1.1 200 ", 0) != 0) {
      std::fprintf(stderr, "GET /health failed after an input: %s\n", reply.c_str());
      std::abort();
    }
    ::close(fd);
  }
  return 0;
}
