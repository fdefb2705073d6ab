// mock_upstream — a canned LLM upstream for the gateway benchmark (bench/gateway/run.sh).
//
// One thread, raw epoll, HTTP/1.1 keep-alive (pipelining honoured): it has to
// be much cheaper than any gateway in front of it, so it never parses JSON.
//   POST .../messages          Anthropic Messages: a tool_use answer, or with
//                              "stream":true an SSE stream (text + one tool call)
//   POST .../chat/completions  OpenAI Chat Completions: the same in OpenAI's shapes
// The shapes are those of tests/data/wire/ (each API's exact SSE framing; the
// stream goes out chunked, one chunk per event, in one write).
//
// Flags:
//   --port N          listen port (default 0: any free one; printed on stdout)
//   --delay-us N      hold every answer N µs before its first byte
//   --drip-ms N       streams never end: after the opening events, one text
//                     delta every N ms until the client goes away (open-stream tests)
// Prints "mock_upstream: listening on http://127.0.0.1:PORT"; exits on SIGTERM/SIGINT
// and then prints the number of requests it answered on stderr.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

// ---- canned bodies ---------------------------------------------------------

constexpr std::string_view kAnthropicMessage =
    R"({"id":"msg_01Aq9w938a90dw8q","type":"message","role":"assistant",)"
    R"("model":"claude-sonnet-4-5","content":[{"type":"text","text":)"
    R"("I'll check the current weather in San Francisco for you."},)"
    R"({"type":"tool_use","id":"toolu_01A09q90qw90lq917835lq9","name":"get_weather",)"
    R"("input":{"location":"San Francisco, CA","unit":"celsius"}}],"stop_reason":"tool_use",)"
    R"("stop_sequence":null,"usage":{"input_tokens":472,"output_tokens":91}})";

constexpr std::string_view kOpenAiCompletion =
    R"({"id":"chatcmpl-abc123","object":"chat.completion","created":1699896916,)"
    R"("model":"gpt-4o-mini","choices":[{"index":0,"message":{"role":"assistant",)"
    R"("content":"I'll check the current weather in San Francisco for you.","tool_calls":[)"
    R"({"id":"call_abc123","type":"function","function":{"name":"get_weather",)"
    R"("arguments":"{\"location\":\"San Francisco, CA\",\"unit\":\"celsius\"}"}}]},)"
    R"("logprobs":null,"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":472,)"
    R"("completion_tokens":91,"total_tokens":563},"system_fingerprint":"fp_44709d6fcb"})";

const char* const kTextPieces[] = {"I'll", " check", " the",       " current", " weather",
                                   " in",  " San",   " Francisco", " for",     " you."};
const char* const kArgPieces[] = {R"({\"location\")", R"(: \"San Fra)", R"(ncisco, CA\")",
                                  R"(, \"unit\": )", R"(\"celsius\"})"};
// The same pieces as OpenAI argument strings (JSON text inside a JSON string).
const char* const kArgPiecesOpenAi[] = {R"({\"location\")", R"(:\"San Fra)", R"(ncisco, CA\")",
                                        R"(,\"unit\":)", R"(\"celsius\"})"};

std::string anthropic_event(std::string_view type, std::string_view data) {
  std::string e = "event: ";
  e.append(type).append("\ndata: ").append(data).append("\n\n");
  return e;
}

std::string anthropic_text_delta(const char* text) {
  return anthropic_event("content_block_delta",
                         std::string(R"({"type":"content_block_delta","index":0,"delta":)") +
                             R"({"type":"text_delta","text":")" + text + "\"}}");
}

// The opening events (up to the first text delta) and the rest.
std::vector<std::string> anthropic_stream_events() {
  std::vector<std::string> ev;
  ev.push_back(anthropic_event(
      "message_start",
      R"({"type":"message_start","message":{"id":"msg_014p7gG3wDgGV9EUtLvnow3U","type":"message",)"
      R"("role":"assistant","model":"claude-sonnet-4-5","stop_sequence":null,)"
      R"("usage":{"input_tokens":472,"output_tokens":2},"content":[],"stop_reason":null}})"));
  ev.push_back(anthropic_event(
      "content_block_start",
      R"({"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}})"));
  ev.push_back(anthropic_event("ping", R"({"type": "ping"})"));
  for (const char* t : kTextPieces) ev.push_back(anthropic_text_delta(t));
  ev.push_back(anthropic_event("content_block_stop", R"({"type":"content_block_stop","index":0})"));
  ev.push_back(anthropic_event(
      "content_block_start",
      R"({"type":"content_block_start","index":1,"content_block":{"type":"tool_use",)"
      R"("id":"toolu_01T1x1fJ34qAmk2tNTrN7Up6","name":"get_weather","input":{}}})"));
  ev.push_back(anthropic_event(
      "content_block_delta",
      R"({"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":""}})"));
  for (const char* a : kArgPieces)
    ev.push_back(anthropic_event(
        "content_block_delta",
        std::string(
            R"({"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta",)") +
            R"("partial_json":")" + a + "\"}}"));
  ev.push_back(anthropic_event("content_block_stop", R"({"type":"content_block_stop","index":1})"));
  ev.push_back(anthropic_event(
      "message_delta",
      R"({"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},)"
      R"("usage":{"output_tokens":89}})"));
  ev.push_back(anthropic_event("message_stop", R"({"type":"message_stop"})"));
  return ev;
}

std::string openai_chunk(std::string_view delta, std::string_view finish) {
  std::string c =
      R"(data: {"id":"chatcmpl-123","object":"chat.completion.chunk","created":1694268190,)"
      R"("model":"gpt-4o-mini","system_fingerprint":"fp_44709d6fcb","choices":[{"index":0,"delta":)";
  c.append(delta).append(R"(,"logprobs":null,"finish_reason":)").append(finish).append("}]}\n\n");
  return c;
}

std::string openai_text_delta(const char* text) {
  return openai_chunk(std::string(R"({"content":")") + text + "\"}", "null");
}

std::vector<std::string> openai_stream_events() {
  std::vector<std::string> ev;
  ev.push_back(openai_chunk(R"({"role":"assistant","content":"","refusal":null})", "null"));
  for (const char* t : kTextPieces) ev.push_back(openai_text_delta(t));
  ev.push_back(openai_chunk(
      R"({"tool_calls":[{"index":0,"id":"call_DdmO9pD3xa9XTPNJ32zg2hcA","type":"function",)"
      R"("function":{"name":"get_weather","arguments":""}}]})",
      "null"));
  for (const char* a : kArgPiecesOpenAi)
    ev.push_back(openai_chunk(
        std::string(R"({"tool_calls":[{"index":0,"function":{"arguments":")") + a + "\"}}]}",
        "null"));
  ev.push_back(openai_chunk("{}", R"("tool_calls")"));
  ev.push_back("data: [DONE]\n\n");
  return ev;
}

std::string chunk(std::string_view data) {
  char size[32];
  int n = std::snprintf(size, sizeof size, "%zx\r\n", data.size());
  std::string out(size, n);
  out.append(data).append("\r\n");
  return out;
}

std::string whole(std::string_view body) {
  std::string r = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ";
  r += std::to_string(body.size());
  r += "\r\nrequest-id: req_mock\r\n\r\n";
  r += body;
  return r;
}

constexpr std::string_view kStreamHead =
    "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\n"
    "transfer-encoding: chunked\r\nrequest-id: req_mock\r\n\r\n";

struct Canned {
  std::string anthropic_whole, anthropic_stream, openai_whole, openai_stream;
  // Drip mode: what opens a never-ending stream, and the event repeated.
  std::string anthropic_open, anthropic_drip, openai_open, openai_drip;
};

Canned make_canned() {
  Canned c;
  c.anthropic_whole = whole(kAnthropicMessage);
  c.openai_whole = whole(kOpenAiCompletion);
  c.anthropic_stream = kStreamHead;
  for (const auto& e : anthropic_stream_events()) c.anthropic_stream += chunk(e);
  c.anthropic_stream += "0\r\n\r\n";
  c.openai_stream = kStreamHead;
  for (const auto& e : openai_stream_events()) c.openai_stream += chunk(e);
  c.openai_stream += "0\r\n\r\n";
  auto a = anthropic_stream_events();
  c.anthropic_open = std::string(kStreamHead) + chunk(a[0]) + chunk(a[1]);
  c.anthropic_drip = chunk(anthropic_text_delta(" and"));
  auto o = openai_stream_events();
  c.openai_open = std::string(kStreamHead) + chunk(o[0]);
  c.openai_drip = chunk(openai_text_delta(" and"));
  return c;
}

// ---- server ----------------------------------------------------------------

struct Conn {
  int fd = -1;
  std::string in;
  std::string out;
  size_t out_off = 0;
  bool close_after = false;
  bool want_out = false;
  const std::string* drip = nullptr;  // a never-ending stream in progress
};

struct Delayed {
  Clock::time_point due;
  int fd;
  std::string bytes;
  const std::string* drip;
};

struct Options {
  int port = 0;
  long delay_us = 0;
  long drip_ms = 0;
};

class Server {
 public:
  Server(Options o) : opt_(o), canned_(make_canned()) {}

  int run() {
    lfd_ = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    int one = 1;
    setsockopt(lfd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(static_cast<uint16_t>(opt_.port));
    if (bind(lfd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || listen(lfd_, 4096) != 0) {
      std::perror("mock_upstream: bind/listen");
      return 1;
    }
    socklen_t len = sizeof a;
    getsockname(lfd_, reinterpret_cast<sockaddr*>(&a), &len);
    ep_ = epoll_create1(EPOLL_CLOEXEC);
    add(lfd_, EPOLLIN);

    sigset_t sigs;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGTERM);
    sigaddset(&sigs, SIGINT);
    sigprocmask(SIG_BLOCK, &sigs, nullptr);
    sfd_ = signalfd(-1, &sigs, SFD_NONBLOCK | SFD_CLOEXEC);
    add(sfd_, EPOLLIN);
    tfd_ = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    add(tfd_, EPOLLIN);
    if (opt_.drip_ms > 0) {
      dfd_ = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
      itimerspec its{};
      its.it_interval.tv_sec = opt_.drip_ms / 1000;
      its.it_interval.tv_nsec = (opt_.drip_ms % 1000) * 1'000'000;
      its.it_value = its.it_interval;
      timerfd_settime(dfd_, 0, &its, nullptr);
      add(dfd_, EPOLLIN);
    }
    std::printf("mock_upstream: listening on http://127.0.0.1:%u\n", ntohs(a.sin_port));
    std::fflush(stdout);

    std::vector<epoll_event> evs(512);
    while (!stop_) {
      int n = epoll_wait(ep_, evs.data(), static_cast<int>(evs.size()), -1);
      if (n < 0) {
        if (errno == EINTR) continue;
        std::perror("mock_upstream: epoll_wait");
        return 1;
      }
      for (int i = 0; i < n; ++i) {
        int fd = evs[i].data.fd;
        uint32_t e = evs[i].events;
        if (fd == lfd_)
          accept_all();
        else if (fd == sfd_)
          stop_ = true;
        else if (fd == tfd_)
          fire_delayed();
        else if (fd == dfd_)
          drip_all();
        else
          on_conn(fd, e);
      }
    }
    std::fprintf(stderr, "mock_upstream: answered %llu requests\n",
                 static_cast<unsigned long long>(answered_));
    return 0;
  }

 private:
  void add(int fd, uint32_t events) {
    epoll_event ev{};
    ev.events = events;
    ev.data.fd = fd;
    epoll_ctl(ep_, EPOLL_CTL_ADD, fd, &ev);
  }

  void accept_all() {
    for (;;) {
      int fd = accept4(lfd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) return;
      int one = 1;
      setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      conns_[fd].fd = fd;
      add(fd, EPOLLIN | EPOLLRDHUP);
    }
  }

  void close_conn(int fd) {
    epoll_ctl(ep_, EPOLL_CTL_DEL, fd, nullptr);
    close(fd);
    conns_.erase(fd);
  }

  void on_conn(int fd, uint32_t events) {
    auto it = conns_.find(fd);
    if (it == conns_.end()) return;
    Conn& c = it->second;
    if (events & (EPOLLERR | EPOLLHUP)) return close_conn(fd);
    if (events & (EPOLLIN | EPOLLRDHUP)) {
      char buf[65536];
      for (;;) {
        ssize_t r = read(fd, buf, sizeof buf);
        if (r > 0) {
          c.in.append(buf, static_cast<size_t>(r));
          if (static_cast<size_t>(r) < sizeof buf) break;
          continue;
        }
        if (r == 0) return close_conn(fd);
        if (errno == EAGAIN || errno == EINTR) break;
        return close_conn(fd);
      }
      if (!parse(c)) return close_conn(fd);
    }
    flush(c);
  }

  // Answers every complete request in c.in. False: unusable input.
  bool parse(Conn& c) {
    for (;;) {
      size_t end = c.in.find("\r\n\r\n");
      if (end == std::string::npos) return c.in.size() < 64 * 1024;
      std::string_view head(c.in.data(), end + 2);
      size_t body_len = 0;
      bool chunked = false;
      size_t line = head.find("\r\n") + 2;
      while (line < head.size()) {
        size_t next = head.find("\r\n", line);
        std::string_view h = head.substr(line, next - line);
        line = next + 2;
        size_t colon = h.find(':');
        if (colon == std::string_view::npos) continue;
        std::string name(h.substr(0, colon));
        for (auto& ch : name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        std::string_view value = h.substr(colon + 1);
        while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
        if (name == "content-length")
          body_len = std::strtoul(std::string(value).c_str(), nullptr, 10);
        else if (name == "transfer-encoding")
          chunked = true;
        else if (name == "connection" && (value == "close" || value == "Close"))
          c.close_after = true;
      }
      if (chunked) {
        std::fprintf(stderr, "mock_upstream: chunked request bodies are not supported\n");
        return false;
      }
      if (c.in.size() < end + 4 + body_len) return true;  // body still arriving
      std::string_view request_line = head.substr(0, head.find("\r\n"));
      std::string_view body(c.in.data() + end + 4, body_len);
      answer(c, request_line, body);
      c.in.erase(0, end + 4 + body_len);
    }
  }

  void answer(Conn& c, std::string_view request_line, std::string_view body) {
    ++answered_;
    bool stream = body.find("\"stream\":true") != std::string_view::npos ||
                  body.find("\"stream\": true") != std::string_view::npos;
    bool openai = request_line.find("/chat/completions") != std::string_view::npos;
    bool anthropic = request_line.find("/messages") != std::string_view::npos;
    const std::string* bytes = nullptr;
    const std::string* drip = nullptr;
    static const std::string not_found =
        "HTTP/1.1 404 Not Found\r\ncontent-type: application/json\r\ncontent-length: 21\r\n\r\n"
        "{\"error\":\"not found\"}";
    if (!openai && !anthropic)
      bytes = &not_found;
    else if (opt_.drip_ms > 0 && stream) {
      bytes = openai ? &canned_.openai_open : &canned_.anthropic_open;
      drip = openai ? &canned_.openai_drip : &canned_.anthropic_drip;
    } else if (openai)
      bytes = stream ? &canned_.openai_stream : &canned_.openai_whole;
    else
      bytes = stream ? &canned_.anthropic_stream : &canned_.anthropic_whole;
    if (opt_.delay_us > 0) {
      delayed_.push_back(
          {Clock::now() + std::chrono::microseconds(opt_.delay_us), c.fd, *bytes, drip});
      if (delayed_.size() == 1) arm_delay();
      return;
    }
    c.out.append(*bytes);
    if (drip) c.drip = drip;
  }

  void arm_delay() {
    if (delayed_.empty()) return;
    auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                  delayed_.front().due.time_since_epoch())
                  .count();
    itimerspec its{};
    its.it_value.tv_sec = ns / 1'000'000'000;
    its.it_value.tv_nsec = ns % 1'000'000'000;
    timerfd_settime(tfd_, TFD_TIMER_ABSTIME, &its, nullptr);
  }

  void fire_delayed() {
    uint64_t ticks;
    while (read(tfd_, &ticks, sizeof ticks) > 0) {
    }
    auto now = Clock::now();
    while (!delayed_.empty() && delayed_.front().due <= now) {
      Delayed d = std::move(delayed_.front());
      delayed_.pop_front();
      auto it = conns_.find(d.fd);
      if (it == conns_.end()) continue;  // gone meanwhile (or a reused fd: harmless here)
      it->second.out.append(d.bytes);
      if (d.drip) it->second.drip = d.drip;
      flush(it->second);
    }
    arm_delay();
  }

  void drip_all() {
    uint64_t ticks;
    while (read(dfd_, &ticks, sizeof ticks) > 0) {
    }
    std::vector<int> fds;
    for (auto& [fd, c] : conns_)
      if (c.drip) fds.push_back(fd);
    for (int fd : fds) {
      auto it = conns_.find(fd);
      if (it == conns_.end()) continue;
      it->second.out.append(*it->second.drip);
      flush(it->second);
    }
  }

  void flush(Conn& c) {
    while (c.out_off < c.out.size()) {
      ssize_t w = send(c.fd, c.out.data() + c.out_off, c.out.size() - c.out_off, MSG_NOSIGNAL);
      if (w > 0) {
        c.out_off += static_cast<size_t>(w);
        continue;
      }
      if (w < 0 && errno == EINTR) continue;
      if (w < 0 && errno == EAGAIN) break;
      return close_conn(c.fd);
    }
    if (c.out_off == c.out.size()) {
      c.out.clear();
      c.out_off = 0;
      if (c.close_after && !c.drip) return close_conn(c.fd);
    }
    bool want = c.out_off < c.out.size();
    if (want != c.want_out) {
      c.want_out = want;
      epoll_event ev{};
      ev.events = EPOLLIN | EPOLLRDHUP | (want ? EPOLLOUT : 0u);
      ev.data.fd = c.fd;
      epoll_ctl(ep_, EPOLL_CTL_MOD, c.fd, &ev);
    }
  }

  Options opt_;
  Canned canned_;
  int lfd_ = -1, ep_ = -1, sfd_ = -1, tfd_ = -1, dfd_ = -1;
  bool stop_ = false;
  unsigned long long answered_ = 0;
  std::unordered_map<int, Conn> conns_;
  std::deque<Delayed> delayed_;
};

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    auto value = [&]() -> long {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "mock_upstream: %s needs a value\n", argv[i]);
        std::exit(2);
      }
      return std::strtol(argv[++i], nullptr, 10);
    };
    if (a == "--port")
      o.port = static_cast<int>(value());
    else if (a == "--delay-us")
      o.delay_us = value();
    else if (a == "--drip-ms")
      o.drip_ms = value();
    else {
      std::fprintf(stderr, "usage: mock_upstream [--port N] [--delay-us N] [--drip-ms N]\n");
      return 2;
    }
  }
  return Server(o).run();
}
