#include "gateway/replay/player.h"

#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>

namespace toolwire::gateway::replay {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::microseconds;

Clock::time_point at(Clock::time_point t0, double ms) {
  return t0 +
         std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double, std::milli>(ms));
}

}  // namespace

// One answer being played. Every member is touched on the player's thread only.
struct Player::Play : std::enable_shared_from_this<Play> {
  Play(boost::asio::io_context& ioc, const Exchange* t, transport::HttpCallbacks c, bool p)
      : tape(t), cb(std::move(c)), pacing(p), timer(ioc) {}

  const Exchange* tape;  // null: a mismatch, `error` says why
  Error error;
  transport::HttpCallbacks cb;
  bool pacing;
  boost::asio::steady_timer timer;
  Clock::time_point start = Clock::now();
  transport::HttpStats stats;
  bool head_sent = false, done = false, paused = false, waiting = false;
  size_t next = 0;

  void step() {
    if (done || paused || waiting) return;
    if (!tape) return finish(Status(error));
    if (!head_sent) {
      if (wait_until(tape->head_ms)) return;
      head_sent = true;
      stats.attempts = 1;
      stats.last_status = tape->status;
      stats.time_to_head = std::chrono::duration_cast<microseconds>(Clock::now() - start);
      transport::HttpResponseHead head;
      head.status = tape->status;
      head.http_version = "HTTP/1.1";
      for (const auto& [k, v] : tape->headers) head.headers.add(k, v);
      if (cb.on_head && !cb.on_head(head)) return finish(cancelled());
    }
    if (next < tape->chunks.size()) {
      const Chunk& c = tape->chunks[next];
      if (wait_until(c.at_ms)) return;
      ++next;
      if (stats.body_bytes == 0)
        stats.time_to_first_byte = std::chrono::duration_cast<microseconds>(Clock::now() - start);
      stats.body_bytes += c.bytes.size();
      if (cb.on_body && !cb.on_body(c.bytes)) return finish(cancelled());
      // One chunk per turn: a pause or a cancel in between takes effect.
      return boost::asio::post(timer.get_executor(), [self = shared_from_this()] { self->step(); });
    }
    finish(Status::Ok());
  }

  // With pacing, true while `ms` after the start has not come (a timer resumes).
  bool wait_until(double ms) {
    if (!pacing) return false;
    auto when = at(start, ms);
    if (Clock::now() >= when) return false;
    waiting = true;
    timer.expires_at(when);
    timer.async_wait([self = shared_from_this()](boost::system::error_code) {
      self->waiting = false;
      self->step();
    });
    return true;
  }

  static Status cancelled() { return make_error(ErrorCode::cancelled, "cancelled"); }

  void finish(const Status& s) {
    if (done) return;
    done = true;
    timer.cancel();
    stats.total_time = std::chrono::duration_cast<microseconds>(Clock::now() - start);
    auto complete = std::move(cb.on_complete);
    cb = {};  // the caller's state goes with its last callback
    if (complete) complete(s, stats);
  }
};

Result<std::unique_ptr<Player>> Player::open(const std::string& dir, bool pacing) {
  auto tapes = load_folder(dir);
  if (!tapes) return std::move(tapes).error();
  return std::make_unique<Player>(std::move(*tapes), dir, pacing);
}

Player::Player(std::vector<Exchange> tapes, std::string dir, bool pacing)
    : tapes_(std::move(tapes)), dir_(std::move(dir)), pacing_(pacing), work_(ioc_.get_executor()) {
  for (size_t i = 0; i < tapes_.size(); ++i) {
    keys_.push_back(normalize_request(tapes_[i].method, tapes_[i].target, tapes_[i].body));
    by_key_[keys_.back().text()].push_back(i);
  }
  thread_ = std::thread([this] { ioc_.run(); });
}

Player::~Player() {
  work_.reset();
  ioc_.stop();
  thread_.join();
}

Result<const Exchange*> Player::find(const RequestKey& key) {
  const std::string text = key.text();
  if (auto it = by_key_.find(text); it != by_key_.end()) {
    std::lock_guard lock(mu_);
    size_t n = played_[text]++;
    return &tapes_[it->second[std::min(n, it->second.size() - 1)]];
  }
  std::string msg = "replay: no recorded exchange matches " + key.method + " " + key.target;
  if (tapes_.empty()) return make_error(ErrorCode::not_found, msg + " (" + dir_ + " holds none)");
  // The nearest: the fewest differing places, the same path first.
  size_t best = 0;
  Difference best_d;
  for (size_t i = 0; i < keys_.size(); ++i) {
    Difference d = differ(keys_[i], key);
    bool better = i == 0 || (keys_[i].target == key.target) > (keys_[best].target == key.target) ||
                  ((keys_[i].target == key.target) == (keys_[best].target == key.target) &&
                   d.count < best_d.count);
    if (better) best = i, best_d = std::move(d);
  }
  msg += "; the nearest is " + tapes_[best].file + ", which differs in " +
         std::to_string(best_d.count) + (best_d.count == 1 ? " place" : " places") + ", first at " +
         best_d.where + ": recorded " + best_d.recorded + ", got " + best_d.got;
  return make_error(ErrorCode::not_found, msg);
}

transport::HttpCall Player::start(transport::HttpRequest request, transport::HttpCallbacks cb) {
  auto found = find(normalize_request(request.method, request.url, request.body));
  auto play = std::make_shared<Play>(ioc_, found ? *found : nullptr, std::move(cb), pacing_);
  if (!found) play->error = found.error();
  uint64_t id;
  {
    std::lock_guard lock(mu_);
    id = next_id_++;
  }
  boost::asio::post(ioc_, [play] { play->step(); });
  auto cancel =
      std::make_shared<const std::function<void()>>([&ioc = ioc_, weak = std::weak_ptr(play)] {
        if (auto p = weak.lock()) boost::asio::post(ioc, [p] { p->finish(Play::cancelled()); });
      });
  auto pause = std::make_shared<const std::function<void(bool)>>(
      [&ioc = ioc_, weak = std::weak_ptr(play)](bool paused) {
        if (auto p = weak.lock())
          boost::asio::post(ioc, [p, paused] {
            p->paused = paused;
            if (!paused) p->step();
          });
      });
  return transport::HttpCall(std::move(cancel), id, std::move(pause));
}

}  // namespace toolwire::gateway::replay
