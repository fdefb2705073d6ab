// The Redis client: one hiredis async context at a time, its socket watched
// by the io_context, everything on one strand (see client.h).
#include "toolwire/redis/client.h"

#include <hiredis/async.h>
#include <hiredis/hiredis.h>
#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>

#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <random>

namespace toolwire::redis {
namespace {

namespace asio = boost::asio;
using Clock = std::chrono::steady_clock;
using boost::system::error_code;

Reply own(const redisReply* r) {
  Reply out;
  switch (r->type) {
    case REDIS_REPLY_INTEGER:
      out.type = Reply::Type::integer;
      out.integer = r->integer;
      break;
    case REDIS_REPLY_STRING:
      out.type = Reply::Type::string;
      out.str.assign(r->str, r->len);
      break;
    case REDIS_REPLY_STATUS:
      out.type = Reply::Type::status;
      out.str.assign(r->str, r->len);
      break;
    case REDIS_REPLY_ERROR:
      out.type = Reply::Type::error;
      out.str.assign(r->str, r->len);
      break;
    case REDIS_REPLY_ARRAY:
      out.type = Reply::Type::array;
      out.elements.reserve(r->elements);
      for (size_t i = 0; i < r->elements; ++i) out.elements.push_back(own(r->element[i]));
      break;
    default:
      break;
  }
  return out;
}

class ClientImpl;

// One command on the wire: hiredis holds it as its callback's privdata
// until the reply (or the connection's end) and frees it then.
struct Pending {
  Callback done;  // empty once answered (a deadline came first)
  Clock::time_point deadline;
  ClientImpl* client;
};

// One connection: the hiredis context and the descriptor the io_context
// watches for it. Shared with the handlers waiting on it, so a handler
// that runs after the context was freed finds `ac` null and does nothing.
struct Conn : std::enable_shared_from_this<Conn> {
  ClientImpl* client = nullptr;
  redisAsyncContext* ac = nullptr;
  std::optional<asio::posix::stream_descriptor> sd;
  bool want_read = false, want_write = false;
  bool reading = false, writing = false;
  bool connected = false;
};

class ClientImpl final : public Client, public std::enable_shared_from_this<ClientImpl> {
 public:
  ClientImpl(asio::io_context& ioc, ClientOptions o)
      : o_(std::move(o)),
        strand_(asio::make_strand(ioc)),
        deadline_(strand_),
        retry_(strand_),
        connect_timer_(strand_),
        backoff_(o_.backoff_min) {}

  // Normally stop() closed everything; if it could not (its io_context
  // gone), the context is freed here, its waiting commands unanswered.
  ~ClientImpl() override {
    stopped_ = true;
    for (Pending* p : queue_) p->done = nullptr;
    if (conn_ && conn_->ac) redisAsyncFree(conn_->ac);
  }

  void start() override {
    asio::post(strand_, [self = shared_from_this()] { self->connect(); });
  }

  void stop() override {
    auto done = std::make_shared<std::pair<std::mutex, std::condition_variable>>();
    auto finished = std::make_shared<bool>(false);
    asio::post(strand_, [self = shared_from_this(), done, finished] {
      self->stopped_ = true;
      self->deadline_.cancel();
      self->retry_.cancel();
      self->connect_timer_.cancel();
      self->fail_all(ErrorCode::cancelled, "the Redis client was stopped");
      self->drop();
      std::lock_guard lock(done->first);
      *finished = true;
      done->second.notify_all();
    });
    if (strand_.running_in_this_thread()) return;
    std::unique_lock lock(done->first);
    done->second.wait_for(lock, std::chrono::seconds(1), [&] { return *finished; });
  }

  bool connected() const override { return up_.load(std::memory_order_relaxed); }

  void command(std::vector<std::string> argv, Callback done) override {
    if (strand_.running_in_this_thread()) return send(std::move(argv), std::move(done));
    asio::post(strand_, [self = shared_from_this(), argv = std::move(argv),
                         done = std::move(done)]() mutable {
      self->send(std::move(argv), std::move(done));
    });
  }

  Stats stats() const override {
    std::lock_guard lock(stats_mu_);
    return stats_;
  }

  // ---- hiredis hooks (on the strand) ----

  static void on_reply(redisAsyncContext*, void* r, void* privdata) {
    auto* p = static_cast<Pending*>(privdata);
    ClientImpl* self = p->client;
    if (!self->queue_.empty() && self->queue_.front() == p) self->queue_.pop_front();
    Callback done = std::move(p->done);
    delete p;
    if (!done) return;  // answered already (deadline, stop)
    if (!r) {
      self->count_failed(false);
      return done(make_error(ErrorCode::unavailable, "the Redis connection was lost"));
    }
    done(own(static_cast<redisReply*>(r)));
  }

  // ac->data is the client (it outlives every context); ev.data the Conn,
  // which hiredis stops using once cleanup() ran.
  static void on_connect(const redisAsyncContext* ac, int status) {
    auto* self = static_cast<ClientImpl*>(ac->data);
    self->connect_timer_.cancel();
    Conn* conn = self->conn_.get();
    if (!conn) return;
    if (status != REDIS_OK) {
      self->note_down(std::string("cannot connect to ") + self->o_.url.to_string() + ": " +
                      (ac->errstr ? ac->errstr : "error"));
      return;  // hiredis frees the context: cleanup() schedules the retry
    }
    conn->connected = true;
    if (self->o_.url.db != 0) {
      std::string db = std::to_string(self->o_.url.db);
      const char* argv[] = {"SELECT", db.c_str()};
      size_t len[] = {6, db.size()};
      auto* p = new Pending{[self](Result<Reply> r) {
                              if (r && r->is_error()) self->log("redis: SELECT failed: " + r->str);
                            },
                            Clock::now() + self->o_.command_timeout, self};
      self->queue_.push_back(p);
      redisAsyncCommandArgv(const_cast<redisAsyncContext*>(ac), on_reply, p, 2, argv, len);
      self->arm_deadline();
    }
    self->backoff_ = self->o_.backoff_min;
    {
      std::lock_guard lock(self->stats_mu_);
      ++self->stats_.connects;
    }
    self->up_ = true;
    self->logged_down_ = false;
    self->log("redis: connected to " + self->o_.url.to_string());
  }

  static void on_disconnect(const redisAsyncContext* ac, int status) {
    auto* self = static_cast<ClientImpl*>(ac->data);
    if (status != REDIS_OK)
      self->note_down("redis: connection to " + self->o_.url.to_string() +
                      " lost: " + (ac->errstr ? ac->errstr : "closed"));
  }

  static void add_read(void* d) {
    auto* c = static_cast<Conn*>(d);
    c->want_read = true;
    c->client->watch_read(c->shared_from_this());
  }
  static void del_read(void* d) { static_cast<Conn*>(d)->want_read = false; }
  static void add_write(void* d) {
    auto* c = static_cast<Conn*>(d);
    c->want_write = true;
    c->client->watch_write(c->shared_from_this());
  }
  static void del_write(void* d) { static_cast<Conn*>(d)->want_write = false; }
  // The context is being freed (by hiredis after an error or a close, or by
  // drop()): forget it, and connect again unless stopped.
  static void cleanup(void* d) {
    auto* c = static_cast<Conn*>(d);
    ClientImpl* self = c->client;
    c->ac = nullptr;
    c->want_read = c->want_write = false;
    if (c->sd) {
      c->sd->release();  // hiredis closes the descriptor itself
      c->sd.reset();
    }
    if (self->conn_.get() == c) {
      self->conn_.reset();
      self->went_down();
      self->schedule_reconnect();
    }
  }

 private:
  void log(const std::string& line) const {
    if (o_.log) o_.log(line);
  }

  void count_failed(bool timeout) {
    std::lock_guard lock(stats_mu_);
    ++stats_.failed;
    if (timeout) ++stats_.timeouts;
  }

  // One line per outage, not one per failed try.
  void note_down(const std::string& line) {
    if (!logged_down_) log(line);
    logged_down_ = true;
  }

  void went_down() {
    if (up_.exchange(false)) {
      std::lock_guard lock(stats_mu_);
      ++stats_.disconnects;
    }
  }

  void connect() {
    if (stopped_ || conn_) return;
    redisAsyncContext* ac = redisAsyncConnect(o_.url.host.c_str(), o_.url.port);
    if (!ac) {
      note_down("redis: out of memory connecting");
      return schedule_reconnect();
    }
    if (ac->err) {
      note_down("redis: cannot connect to " + o_.url.to_string() + ": " + ac->errstr);
      redisAsyncFree(ac);
      return schedule_reconnect();
    }
    auto c = std::make_shared<Conn>();
    c->client = this;
    c->ac = ac;
    c->sd.emplace(strand_, ac->c.fd);
    ac->data = this;
    ac->ev.data = c.get();
    ac->ev.addRead = add_read;
    ac->ev.delRead = del_read;
    ac->ev.addWrite = add_write;
    ac->ev.delWrite = del_write;
    ac->ev.cleanup = cleanup;
    conn_ = c;
    redisAsyncSetConnectCallback(ac, on_connect);
    redisAsyncSetDisconnectCallback(ac, on_disconnect);
    connect_timer_.expires_after(o_.connect_timeout);
    connect_timer_.async_wait([self = shared_from_this(), c](error_code ec) {
      if (ec || c->connected || !c->ac) return;
      self->note_down("redis: connecting to " + self->o_.url.to_string() + " timed out");
      redisAsyncFree(c->ac);  // cleanup() schedules the retry
    });
  }

  void schedule_reconnect() {
    if (stopped_) return;
    // Full jitter over [backoff/2, backoff], so replicas do not reconnect in step.
    auto ms = backoff_.count();
    std::uniform_int_distribution<long> pick(ms / 2, ms);
    retry_.expires_after(std::chrono::milliseconds(pick(rng_)));
    backoff_ = std::min(o_.backoff_max, backoff_ * 2);
    retry_.async_wait([self = shared_from_this()](error_code ec) {
      if (!ec) self->connect();
    });
  }

  void watch_read(std::shared_ptr<Conn> c) {
    if (c->reading || !c->sd) return;
    c->reading = true;
    c->sd->async_wait(asio::posix::stream_descriptor::wait_read, [c](error_code ec) {
      c->reading = false;
      if (ec || !c->ac || !c->want_read) return;
      redisAsyncHandleRead(c->ac);
      if (c->ac && c->want_read) c->client->watch_read(c);
    });
  }

  void watch_write(std::shared_ptr<Conn> c) {
    if (c->writing || !c->sd) return;
    c->writing = true;
    c->sd->async_wait(asio::posix::stream_descriptor::wait_write, [c](error_code ec) {
      c->writing = false;
      if (ec || !c->ac || !c->want_write) return;
      redisAsyncHandleWrite(c->ac);
      if (c->ac && c->want_write) c->client->watch_write(c);
    });
  }

  void send(std::vector<std::string> argv, Callback done) {
    {
      std::lock_guard lock(stats_mu_);
      ++stats_.commands;
    }
    if (stopped_ || !conn_ || !conn_->connected || !conn_->ac) {
      count_failed(false);
      return done(make_error(ErrorCode::unavailable,
                             stopped_ ? "the Redis client was stopped"
                                      : "Redis at " + o_.url.to_string() + " is not connected"));
    }
    std::vector<const char*> args;
    std::vector<size_t> lens;
    args.reserve(argv.size());
    lens.reserve(argv.size());
    for (const auto& a : argv) {
      args.push_back(a.data());
      lens.push_back(a.size());
    }
    auto* p = new Pending{std::move(done), Clock::now() + o_.command_timeout, this};
    queue_.push_back(p);
    if (redisAsyncCommandArgv(conn_->ac, on_reply, p, static_cast<int>(args.size()), args.data(),
                              lens.data()) != REDIS_OK) {
      queue_.pop_back();
      Callback d = std::move(p->done);
      delete p;
      count_failed(false);
      return d(make_error(ErrorCode::unavailable, "Redis refused the command (disconnecting)"));
    }
    arm_deadline();
  }

  // One timer for the whole queue: replies come in order, so the oldest
  // command's deadline is the only one that can pass first.
  void arm_deadline() {
    if (deadline_armed_ || queue_.empty()) return;
    deadline_armed_ = true;
    deadline_.expires_at(queue_.front()->deadline);
    deadline_.async_wait([self = shared_from_this()](error_code ec) {
      self->deadline_armed_ = false;
      if (ec) return;
      if (self->queue_.empty()) return;
      if (self->queue_.front()->deadline > Clock::now()) return self->arm_deadline();
      self->log("redis: no reply from " + self->o_.url.to_string() + " within " +
                std::to_string(self->o_.command_timeout.count()) + " ms: reconnecting");
      self->fail_all(ErrorCode::deadline_exceeded,
                     "Redis did not answer within " +
                         std::to_string(self->o_.command_timeout.count()) + " ms");
      self->drop();
    });
  }

  // Answers every waiting command now; hiredis still frees them later.
  void fail_all(ErrorCode code, const std::string& why) {
    std::deque<Pending*> q;
    q.swap(queue_);
    for (Pending* p : q) {
      Callback d = std::move(p->done);
      p->done = nullptr;
      if (!d) continue;
      count_failed(code == ErrorCode::deadline_exceeded);
      d(make_error(code, why));
    }
  }

  // Frees the context; cleanup() then forgets it and reconnects unless stopped.
  void drop() {
    if (conn_ && conn_->ac) redisAsyncFree(conn_->ac);
  }

  ClientOptions o_;
  asio::strand<asio::io_context::executor_type> strand_;
  asio::steady_timer deadline_, retry_, connect_timer_;
  std::shared_ptr<Conn> conn_;
  std::deque<Pending*> queue_;  // sent, not yet answered, oldest first
  bool deadline_armed_ = false;
  bool stopped_ = false;
  bool logged_down_ = false;
  std::atomic<bool> up_{false};
  std::chrono::milliseconds backoff_;
  std::minstd_rand rng_{std::random_device{}()};
  mutable std::mutex stats_mu_;
  Stats stats_;
};

}  // namespace

std::shared_ptr<Client> Client::create(asio::io_context& ioc, ClientOptions options) {
  return std::make_shared<ClientImpl>(ioc, std::move(options));
}

}  // namespace toolwire::redis
