// One upstream connection, plain TCP or TLS, and the pool that keeps idle
// keep-alive connections per scheme://host:port.
#pragma once

#include <sys/socket.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace toolwire::transport::asio_detail {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;
// Sockets on the io_context's own executor type (not the type-erased
// any_io_executor): cheaper steps in every composed operation.
using Socket = asio::basic_stream_socket<tcp, asio::io_context::executor_type>;

class Connection {
 public:
  static constexpr size_t kReadChunk = 16 * 1024;
  Connection(asio::io_context& ioc, asio::ssl::context* tls, std::string pool_key)
      : pool_key_(std::move(pool_key)) {
    // Beast reads max(512, free capacity) bytes at a time: an empty buffer
    // would take a streamed answer in 512-byte reads, each its own parse
    // round and client write.
    buffer.reserve(kReadChunk);
    if (tls)
      tls_.emplace(ioc.get_executor(), *tls);
    else
      plain_.emplace(ioc.get_executor());
  }

  bool tls() const { return tls_.has_value(); }
  Socket& socket() { return tls_ ? tls_->next_layer() : *plain_; }
  asio::ssl::stream<Socket>& tls_stream() { return *tls_; }

  // Runs `f` with the stream to read and write (the TLS stream or the socket).
  template <class F>
  decltype(auto) with_stream(F&& f) {
    if (tls_) return f(*tls_);
    return f(*plain_);
  }

  void close() {
    boost::system::error_code ignored;
    socket().shutdown(tcp::socket::shutdown_both, ignored);
    socket().close(ignored);
  }

  // The socket's reads and writes return would_block instead of waiting
  // (Asio's own asynchronous operations are unaffected), set once per
  // connection: each call is an ioctl. False if it could not be set.
  bool set_non_blocking() {
    if (!non_blocking_) {
      boost::system::error_code ec;
      socket().non_blocking(true, ec);
      non_blocking_ = !ec;
    }
    return non_blocking_;
  }

  // An idle pooled connection the server has closed (or written to) is
  // readable; one still good is not.
  bool looks_alive() {
    if (!socket().is_open()) return false;
    char c;
    ssize_t n = ::recv(socket().native_handle(), &c, 1, MSG_PEEK | MSG_DONTWAIT);
    return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
  }

  const std::string& pool_key() const { return pool_key_; }
  // The body read buffer, allocated once per connection and not zero-filled:
  // a 16 KB buffer per request cost a malloc, a memset and a consolidating free.
  char* read_buffer(size_t n) {
    if (read_size_ < n) {
      read_buf_.reset(new char[n]);
      read_size_ = n;
    }
    return read_buf_.get();
  }
  boost::beast::flat_buffer buffer;
  Clock::time_point idle_since{};
  int uses = 0;

 private:
  std::string pool_key_;
  bool non_blocking_ = false;
  std::unique_ptr<char[]> read_buf_;
  size_t read_size_ = 0;
  std::optional<Socket> plain_;
  std::optional<asio::ssl::stream<Socket>> tls_;
};

class ConnectionPool {
 public:
  // A connection back in the pool for less than this is taken without the
  // peek of looks_alive() (a syscall per request): no server closes a
  // keep-alive connection that soon after answering, and one that does costs
  // a retry on a fresh connection (the stale-connection rule of the call),
  // not an error.
  static constexpr std::chrono::milliseconds kTrustedIdle{250};

  ConnectionPool(size_t max_per_key, std::chrono::milliseconds keep)
      : max_per_key_(max_per_key), keep_(keep) {}

  std::shared_ptr<Connection> take(const std::string& key) {
    std::shared_ptr<Connection> out;
    std::vector<std::shared_ptr<Connection>> stale;  // closed outside the lock
    {
      std::lock_guard lock(mu_);
      auto it = idle_.find(key);
      if (it == idle_.end()) return nullptr;
      auto& v = it->second;
      auto now = Clock::now();
      while (!v.empty()) {
        std::shared_ptr<Connection> c = std::move(v.back());
        v.pop_back();
        --count_;
        const auto idle = now - c->idle_since;
        if (idle < keep_ && (idle < kTrustedIdle || c->looks_alive())) {
          out = std::move(c);
          break;
        }
        stale.push_back(std::move(c));
      }
    }
    for (auto& c : stale) c->close();
    return out;
  }

  void put(std::shared_ptr<Connection> c) {
    c->idle_since = Clock::now();
    std::lock_guard lock(mu_);
    auto& v = idle_[c->pool_key()];
    if (v.size() >= max_per_key_) {
      c->close();
      return;
    }
    v.push_back(std::move(c));
    ++count_;
  }

  size_t size() const {
    std::lock_guard lock(mu_);
    return count_;
  }

  void clear() {
    std::lock_guard lock(mu_);
    for (auto& [k, v] : idle_)
      for (auto& c : v) c->close();
    idle_.clear();
    count_ = 0;
  }

 private:
  mutable std::mutex mu_;
  std::unordered_map<std::string, std::vector<std::shared_ptr<Connection>>> idle_;
  size_t count_ = 0;
  size_t max_per_key_;
  std::chrono::milliseconds keep_;
};

}  // namespace toolwire::transport::asio_detail
