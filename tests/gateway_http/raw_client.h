// A blocking TCP client for gateway tests that controls every byte it sends
// (pipelined requests, one byte at a time, a header flood, a truncated body)
// and reads with poll()-bounded waits: no read can hang a test.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace toolwire::testing {

using Ms = std::chrono::milliseconds;
using SteadyClock = std::chrono::steady_clock;

inline std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

struct HttpResponse {
  std::string version;  // "HTTP/1.1"
  int status = 0;
  std::map<std::string, std::string> headers;  // names lower-cased
  std::string body;                            // de-chunked
  bool chunked = false;

  std::string header(std::string_view name) const {
    auto it = headers.find(lower(name));
    return it == headers.end() ? std::string() : it->second;
  }
};

// Takes one whole response off the front of `buf`. `eof`: the peer closed,
// so a body without length ends here. nullopt: not complete yet (or junk).
inline std::optional<HttpResponse> take_response(std::string& buf, bool eof) {
  size_t head_end = buf.find("\r\n\r\n");
  if (head_end == std::string::npos) return std::nullopt;
  HttpResponse r;
  std::string_view head(buf.data(), head_end);
  size_t line_end = head.find("\r\n");
  std::string_view status_line = head.substr(0, line_end);
  size_t sp = status_line.find(' ');
  if (sp == std::string_view::npos) return std::nullopt;
  r.version = std::string(status_line.substr(0, sp));
  r.status = std::atoi(std::string(status_line.substr(sp + 1, 3)).c_str());
  size_t pos = line_end == std::string_view::npos ? head.size() : line_end + 2;
  while (pos < head.size()) {
    size_t e = head.find("\r\n", pos);
    if (e == std::string_view::npos) e = head.size();
    std::string_view line = head.substr(pos, e - pos);
    size_t colon = line.find(':');
    if (colon != std::string_view::npos) {
      std::string_view v = line.substr(colon + 1);
      while (!v.empty() && v.front() == ' ') v.remove_prefix(1);
      r.headers[lower(line.substr(0, colon))] = std::string(v);
    }
    pos = e + 2;
  }
  size_t body_start = head_end + 4;
  if (lower(r.header("transfer-encoding")) == "chunked") {
    r.chunked = true;
    size_t p = body_start;
    for (;;) {
      size_t e = buf.find("\r\n", p);
      if (e == std::string::npos) return std::nullopt;
      size_t n = std::stoul(buf.substr(p, e - p), nullptr, 16);
      if (buf.size() < e + 2 + n + 2) return std::nullopt;
      r.body.append(buf, e + 2, n);
      p = e + 2 + n + 2;
      if (n == 0) {
        buf.erase(0, p);
        return r;
      }
    }
  }
  std::string cl = r.header("content-length");
  if (!cl.empty()) {
    size_t n = std::stoul(cl);
    if (buf.size() < body_start + n) return std::nullopt;
    r.body = buf.substr(body_start, n);
    buf.erase(0, body_start + n);
    return r;
  }
  if (!eof) return std::nullopt;  // the body ends with the connection
  r.body = buf.substr(body_start);
  buf.clear();
  return r;
}

class RawClient {
 public:
  explicit RawClient(uint16_t port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
      ::close(fd_);
      fd_ = -1;
    }
    int one = 1;
    if (fd_ >= 0) ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  }
  ~RawClient() { close(); }
  RawClient(const RawClient&) = delete;
  RawClient& operator=(const RawClient&) = delete;

  bool connected() const { return fd_ >= 0; }

  bool send(std::string_view bytes) {
    while (!bytes.empty()) {
      ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      bytes.remove_prefix(static_cast<size_t>(n));
    }
    return true;
  }
  void shutdown_write() { ::shutdown(fd_, SHUT_WR); }
  void close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  // Closes with a TCP RST instead of a FIN.
  void reset() {
    linger l{1, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_LINGER, &l, sizeof l);
    close();
  }

  // Waits up to `limit` for bytes; true when some arrived (or the peer closed).
  bool wait_readable(Ms limit) {
    pollfd p{fd_, POLLIN, 0};
    int n = ::poll(&p, 1, static_cast<int>(limit.count()));
    return n > 0;
  }

  // Reads what is there (waiting up to `limit` for the first byte). False on
  // timeout; sets eof() when the peer closed or reset.
  bool read_some(Ms limit) {
    if (eof_ || fd_ < 0) return false;
    if (!wait_readable(limit)) return false;
    char tmp[65536];
    ssize_t n = ::recv(fd_, tmp, sizeof tmp, 0);
    if (n <= 0) {
      eof_ = true;
      return true;
    }
    buf_.append(tmp, static_cast<size_t>(n));
    return true;
  }

  // Reads until `done(buffer)` holds, the peer closes or `limit` passes.
  bool read_until(const std::function<bool(const std::string&)>& done, Ms limit) {
    auto deadline = SteadyClock::now() + limit;
    while (!done(buf_)) {
      auto left = std::chrono::duration_cast<Ms>(deadline - SteadyClock::now());
      if (left.count() <= 0 || eof_) return done(buf_);
      read_some(left);
    }
    return true;
  }
  bool read_until_contains(std::string_view needle, Ms limit = Ms(5000)) {
    return read_until([&](const std::string& b) { return b.find(needle) != std::string::npos; },
                      limit);
  }

  // One whole response, or nullopt when none completed within `limit`.
  std::optional<HttpResponse> read_response(Ms limit = Ms(5000)) {
    auto deadline = SteadyClock::now() + limit;
    for (;;) {
      if (auto r = take_response(buf_, eof_)) return r;
      auto left = std::chrono::duration_cast<Ms>(deadline - SteadyClock::now());
      if (left.count() <= 0 || eof_) return std::nullopt;
      read_some(left);
    }
  }

  // True when the peer closes within `limit` (whatever it sent first is kept).
  bool wait_closed(Ms limit = Ms(5000)) {
    auto deadline = SteadyClock::now() + limit;
    while (!eof_) {
      auto left = std::chrono::duration_cast<Ms>(deadline - SteadyClock::now());
      if (left.count() <= 0) return false;
      read_some(left);
    }
    return true;
  }

  bool eof() const { return eof_; }
  std::string& buffer() { return buf_; }

 private:
  int fd_ = -1;
  std::string buf_;
  bool eof_ = false;
};

// A request with Content-Length (and any extra header lines, each ending CRLF).
inline std::string http_post(std::string_view path, std::string_view body,
                             std::string_view extra_headers = "",
                             std::string_view version = "HTTP/1.1") {
  std::string r = "POST " + std::string(path) + " " + std::string(version) +
                  "\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n";
  r += extra_headers;
  r += "content-length: " + std::to_string(body.size()) + "\r\n\r\n";
  r += body;
  return r;
}

inline std::string http_get(std::string_view path, std::string_view extra_headers = "") {
  return "GET " + std::string(path) + " HTTP/1.1\r\nhost: 127.0.0.1\r\n" +
         std::string(extra_headers) + "\r\n";
}

}  // namespace toolwire::testing
