// The scripted mock HTTP/1.1 server (see mock_http_server.h).
#include "mock_http_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <memory>

namespace toolwire::testing {

namespace {

char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

bool write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n <= 0) return false;
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

const char* reason_for(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 201:
      return "Created";
    case 204:
      return "No Content";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 408:
      return "Request Timeout";
    case 409:
      return "Conflict";
    case 429:
      return "Too Many Requests";
    case 500:
      return "Internal Server Error";
    case 502:
      return "Bad Gateway";
    case 503:
      return "Service Unavailable";
    case 529:
      return "Overloaded";
    default:
      return "Status";
  }
}

// Reads until `buf` holds `n` bytes past `from`; false on EOF/error.
bool read_more(int fd, std::string& buf) {
  char tmp[16384];
  ssize_t n = ::recv(fd, tmp, sizeof tmp, 0);
  if (n <= 0) return false;
  buf.append(tmp, static_cast<size_t>(n));
  return true;
}

}  // namespace

std::optional<std::string> MockRequest::header(std::string_view name) const {
  for (const auto& [n, v] : headers) {
    if (iequals(n, name)) return v;
  }
  return std::nullopt;
}

// ---- MockResponse -----------------------------------------------------------

MockResponse::MockResponse(int status, std::string reason)
    : status_(status), reason_(std::move(reason)) {}

MockResponse MockResponse::json(int status, std::string body) {
  MockResponse r(status);
  r.header("Content-Type", "application/json");
  r.body(std::move(body));
  return r;
}

MockResponse MockResponse::sse_stream(int status) {
  MockResponse r(status);
  r.header("Content-Type", "text/event-stream");
  r.header("Cache-Control", "no-cache");
  r.chunked_ = true;
  return r;
}

MockResponse MockResponse::reset_now() {
  MockResponse r = raw("");
  r.reset();
  return r;
}

MockResponse MockResponse::raw(std::string bytes) {
  MockResponse r;
  r.raw_ = true;
  r.raw_head_ = std::move(bytes);
  return r;
}

MockResponse& MockResponse::header(std::string name, std::string value) {
  headers_.emplace_back(std::move(name), std::move(value));
  return *this;
}

MockResponse& MockResponse::body(std::string body) {
  body_ = std::move(body);
  has_body_ = true;
  return *this;
}

MockResponse& MockResponse::delay(milliseconds d) {
  head_delay_ = d;
  return *this;
}

MockResponse& MockResponse::chunk(std::string data, milliseconds after) {
  chunked_ = true;
  actions_.push_back(Action{Step::chunk, std::move(data), after});
  return *this;
}

MockResponse& MockResponse::sse(std::string_view data, std::string_view event, milliseconds after) {
  std::string ev;
  if (!event.empty()) ev.append("event: ").append(event).append("\n");
  ev.append("data: ").append(data).append("\n\n");
  return chunk(std::move(ev), after);
}

MockResponse& MockResponse::write(std::string bytes, milliseconds after) {
  actions_.push_back(Action{Step::data, std::move(bytes), after});
  return *this;
}

MockResponse& MockResponse::hold() {
  actions_.push_back(Action{Step::hold, {}, {}});
  return *this;
}

MockResponse& MockResponse::reset() {
  actions_.push_back(Action{Step::reset, {}, {}});
  return *this;
}

MockResponse& MockResponse::stall() {
  actions_.push_back(Action{Step::stall, {}, {}});
  return *this;
}

MockResponse& MockResponse::close() {
  actions_.push_back(Action{Step::close, {}, {}});
  return *this;
}

MockResponse& MockResponse::no_keep_alive() {
  keep_alive_ = false;
  return *this;
}

// ---- MockHttpServer ---------------------------------------------------------

namespace {
struct Worker {
  std::thread thread;
  std::shared_ptr<std::atomic<bool>> done;
};
}  // namespace

MockHttpServer::MockHttpServer() : MockHttpServer(Handler{}) {}

MockHttpServer::MockHttpServer(Handler handler) : handler_(std::move(handler)) {
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int one = 1;
  ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::listen(listen_fd_, 4096) != 0) {
    std::perror("mock server: bind/listen");
    std::abort();
  }
  socklen_t len = sizeof addr;
  ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
  port_ = ntohs(addr.sin_port);
  acceptor_ = std::thread([this] { accept_loop(); });
}

MockHttpServer::~MockHttpServer() { stop(); }

std::string MockHttpServer::url(std::string_view path) const {
  return "http://127.0.0.1:" + std::to_string(port_) + std::string(path);
}

void MockHttpServer::enqueue(MockResponse response) {
  std::lock_guard<std::mutex> lock(mu_);
  queue_.push_back(std::move(response));
}

void MockHttpServer::set_handler(Handler handler) {
  std::lock_guard<std::mutex> lock(mu_);
  handler_ = std::move(handler);
}

std::vector<MockRequest> MockHttpServer::requests() const {
  std::lock_guard<std::mutex> lock(mu_);
  return requests_;
}

size_t MockHttpServer::request_count() const {
  std::lock_guard<std::mutex> lock(mu_);
  return requests_.size();
}

size_t MockHttpServer::connection_count() const {
  std::lock_guard<std::mutex> lock(mu_);
  return connections_;
}

size_t MockHttpServer::open_connections() const {
  std::lock_guard<std::mutex> lock(mu_);
  return open_;
}

bool MockHttpServer::wait_for_requests(size_t n, milliseconds timeout) const {
  std::unique_lock<std::mutex> lock(mu_);
  return cv_.wait_for(lock, timeout, [&] { return requests_.size() >= n; });
}

bool MockHttpServer::wait_for_idle(milliseconds timeout) const {
  std::unique_lock<std::mutex> lock(mu_);
  return cv_.wait_for(lock, timeout, [&] { return open_ == 0; });
}

void MockHttpServer::release() {
  std::lock_guard<std::mutex> lock(mu_);
  released_ = true;
  cv_.notify_all();
}

void MockHttpServer::stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return;
    stopping_ = true;
    for (int fd : conn_fds_) ::shutdown(fd, SHUT_RDWR);
    cv_.notify_all();
  }
  ::shutdown(listen_fd_, SHUT_RDWR);
  if (acceptor_.joinable()) acceptor_.join();
  ::close(listen_fd_);
  std::vector<std::thread> workers;
  {
    std::lock_guard<std::mutex> lock(mu_);
    workers.swap(workers_);
  }
  for (auto& w : workers) w.join();
}

void MockHttpServer::accept_loop() {
  std::vector<Worker> live;
  for (;;) {
    pollfd p{listen_fd_, POLLIN, 0};
    int pr = ::poll(&p, 1, 200);
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stopping_) break;
    }
    // Join finished connection threads so long runs do not pile them up.
    for (auto it = live.begin(); it != live.end();) {
      if (it->done->load()) {
        it->thread.join();
        it = live.erase(it);
      } else {
        ++it;
      }
    }
    if (pr <= 0) continue;
    int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    int conn_no;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stopping_) {
        ::close(fd);
        break;
      }
      conn_no = static_cast<int>(++connections_);
      ++open_;
      conn_fds_.push_back(fd);
    }
    auto done = std::make_shared<std::atomic<bool>>(false);
    live.push_back(Worker{std::thread([this, fd, conn_no, done] {
                            serve(fd, conn_no);
                            done->store(true);
                          }),
                          done});
  }
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& w : live) workers_.push_back(std::move(w.thread));
}

MockResponse MockHttpServer::next_response(const MockRequest& req) {
  Handler handler;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!queue_.empty()) {
      MockResponse r = std::move(queue_.front());
      queue_.pop_front();
      return r;
    }
    handler = handler_;
  }
  if (handler) return handler(req);
  return MockResponse::json(404, R"({"error":"no scripted response"})");
}

bool MockHttpServer::pause(milliseconds d) {
  std::unique_lock<std::mutex> lock(mu_);
  if (d.count() > 0) cv_.wait_for(lock, d, [&] { return stopping_; });
  return !stopping_;
}

bool MockHttpServer::wait_gate() {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return stopping_ || released_; });
  return !stopping_;
}

void MockHttpServer::serve(int fd, int conn_no) {
  std::string buf;
  bool keep = true;
  bool abortive = false;
  while (keep) {
    size_t head_end;
    while ((head_end = buf.find("\r\n\r\n")) == std::string::npos) {
      if (buf.size() > (1u << 20) || !read_more(fd, buf)) {
        keep = false;
        break;
      }
    }
    if (!keep) break;
    MockRequest req;
    req.connection = conn_no;
    std::string_view head(buf.data(), head_end);
    size_t eol = head.find("\r\n");
    std::string_view line = head.substr(0, eol);
    size_t s1 = line.find(' '), s2 = line.rfind(' ');
    if (s1 == std::string_view::npos || s2 == s1) break;
    req.method = std::string(line.substr(0, s1));
    req.target = std::string(line.substr(s1 + 1, s2 - s1 - 1));
    req.version = std::string(line.substr(s2 + 1));
    while (eol != std::string_view::npos) {
      size_t next = head.find("\r\n", eol + 2);
      std::string_view h = head.substr(
          eol + 2, next == std::string_view::npos ? std::string_view::npos : next - eol - 2);
      size_t colon = h.find(':');
      if (colon != std::string_view::npos)
        req.headers.emplace_back(std::string(trim(h.substr(0, colon))),
                                 std::string(trim(h.substr(colon + 1))));
      eol = next;
    }
    buf.erase(0, head_end + 4);
    if (auto expect = req.header("expect"); expect && iequals(*expect, "100-continue")) {
      write_all(fd, "HTTP/1.1 100 Continue\r\n\r\n");
    }
    if (auto cl = req.header("content-length")) {
      size_t n = std::strtoull(cl->c_str(), nullptr, 10);
      while (buf.size() < n && read_more(fd, buf)) {
      }
      if (buf.size() < n) break;
      req.body = buf.substr(0, n);
      buf.erase(0, n);
    } else if (auto te = req.header("transfer-encoding"); te && iequals(*te, "chunked")) {
      for (;;) {  // chunked request body: size line, data, CRLF; 0 ends it
        size_t le;
        while ((le = buf.find("\r\n")) == std::string::npos && read_more(fd, buf)) {
        }
        if (le == std::string::npos) {
          keep = false;
          break;
        }
        size_t n = std::strtoull(buf.substr(0, le).c_str(), nullptr, 16);
        while (buf.size() < le + 2 + n + 2 && read_more(fd, buf)) {
        }
        if (buf.size() < le + 2 + n + 2) {
          keep = false;
          break;
        }
        req.body.append(buf, le + 2, n);
        buf.erase(0, le + 2 + n + 2);
        if (n == 0) break;
      }
      if (!keep) break;
    }
    bool client_close = req.header("connection") && iequals(*req.header("connection"), "close");
    {
      std::lock_guard<std::mutex> lock(mu_);
      requests_.push_back(req);
      cv_.notify_all();
    }
    MockResponse r = next_response(req);
    bool reset_steps = std::any_of(
        r.actions_.begin(), r.actions_.end(),
        [](const MockResponse::Action& a) { return a.step == MockResponse::Step::reset; });
    keep = send_response(fd, r) && !client_close;
    if (!keep && reset_steps) abortive = true;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    conn_fds_.erase(std::remove(conn_fds_.begin(), conn_fds_.end(), fd), conn_fds_.end());
  }
  if (abortive) {
    linger lg{1, 0};  // close() now sends RST instead of FIN
    ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
  }
  ::close(fd);
  std::lock_guard<std::mutex> lock(mu_);
  --open_;
  cv_.notify_all();
}

bool MockHttpServer::send_response(int fd, const MockResponse& r) {
  if (!pause(r.head_delay_)) return false;
  std::string head;
  if (r.raw_) {
    head = r.raw_head_;
  } else {
    head = "HTTP/1.1 " + std::to_string(r.status_) + " " +
           (r.reason_.empty() ? reason_for(r.status_) : r.reason_) + "\r\n";
    bool has_len = false, has_te = false;
    for (const auto& [n, v] : r.headers_) {
      head += n + ": " + v + "\r\n";
      has_len |= iequals(n, "content-length");
      has_te |= iequals(n, "transfer-encoding");
    }
    if (r.chunked_ && !has_te) head += "Transfer-Encoding: chunked\r\n";
    if (!r.chunked_ && !has_len)
      head += "Content-Length: " + std::to_string(r.body_.size()) + "\r\n";
    if (!r.keep_alive_) head += "Connection: close\r\n";
    head += "\r\n";
    if (!r.chunked_) head += r.body_;
  }
  if (!head.empty() && !write_all(fd, head)) return false;
  for (const auto& a : r.actions_) {
    switch (a.step) {
      case MockResponse::Step::data:
        if (!pause(a.after) || !write_all(fd, a.data)) return false;
        break;
      case MockResponse::Step::chunk: {
        if (!pause(a.after)) return false;
        char size[32];
        std::snprintf(size, sizeof size, "%zx\r\n", a.data.size());
        if (!write_all(fd, std::string(size) + a.data + "\r\n")) return false;
        break;
      }
      case MockResponse::Step::hold:
        if (!wait_gate()) return false;
        break;
      case MockResponse::Step::reset:
        return false;  // serve() closes with SO_LINGER 0
      case MockResponse::Step::stall:
        wait_gate();
        return false;
      case MockResponse::Step::close:
        return false;
    }
  }
  if (r.chunked_ && !r.raw_ && !write_all(fd, "0\r\n\r\n")) return false;
  return r.keep_alive_;
}

}  // namespace toolwire::testing
