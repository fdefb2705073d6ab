#include "gateway/shared_state/shared_state.h"

#include <openssl/evp.h>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>

#include <chrono>

#include "gateway/auth/random_hex.h"
#include "gateway/shared_state/conversation_codec.h"
#include "gateway/shared_state/scripts.h"

namespace toolwire::gateway::shared_state {
namespace {

namespace asio = boost::asio;

enum Feature { kRequests, kStreams, kLookups, kWrites };
constexpr const char* kFeatureNames[] = {"requests_per_minute", "max_concurrent_streams",
                                         "response_store_lookup", "response_store_write"};

std::string sha1_hex(std::string_view text) {
  unsigned char d[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  EVP_Digest(text.data(), text.size(), d, &n, EVP_sha1(), nullptr);
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned i = 0; i < n; ++i) {
    out += digits[d[i] >> 4];
    out += digits[d[i] & 15];
  }
  return out;
}

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// A failed command, or an error reply (OOM, a wrong type...), as one Error.
Result<redis::Reply> checked(Result<redis::Reply> r) {
  if (r && r->is_error()) return make_error(ErrorCode::unavailable, "Redis: " + r->str);
  return r;
}

}  // namespace

struct SharedState::Renewal {
  explicit Renewal(asio::io_context& ioc) : strand(asio::make_strand(ioc)), timer(strand) {}
  asio::strand<asio::io_context::executor_type> strand;
  asio::steady_timer timer;
  bool stopped = false;
};

SharedState::SharedState(asio::io_context& ioc, SharedStateOptions options,
                         std::function<void(std::string_view)> log)
    : o_(std::move(options)), log_(std::move(log)) {
  redis::ClientOptions co;
  if (auto url = redis::parse_url(o_.redis_url)) co.url = *url;
  co.command_timeout = o_.timeout;
  co.log = log_;
  redis_ = redis::Client::create(ioc, std::move(co));
  take_ = {scripts::kTakeRequest, sha1_hex(scripts::kTakeRequest)};
  open_ = {scripts::kOpenStream, sha1_hex(scripts::kOpenStream)};
  renew_ = {scripts::kRenewStreams, sha1_hex(scripts::kRenewStreams)};
  save_session_ = {scripts::kSaveSession, sha1_hex(scripts::kSaveSession)};
  renew_session_ = {scripts::kRenewSession, sha1_hex(scripts::kRenewSession)};
  claim_session_ = {scripts::kClaimSession, sha1_hex(scripts::kClaimSession)};
  release_session_ = {scripts::kReleaseSession, sha1_hex(scripts::kReleaseSession)};
  replica_ = random_hex(8).value_or(std::to_string(now_ms()));
  renewal_ = std::make_shared<Renewal>(ioc);
}

void SharedState::start() {
  redis_->start();
  asio::post(renewal_->strand, [self = shared_from_this()] { self->schedule_renewal(); });
}

// Every stream_lease / 3 on the renewal strand, until stop(). The handler
// holds the timer's owner and a weak reference only: no cycle outlives stop().
void SharedState::schedule_renewal() {
  auto r = renewal_;
  if (r->stopped) return;
  r->timer.expires_after(std::max(std::chrono::milliseconds(10), o_.stream_lease / 3));
  r->timer.async_wait([weak = weak_from_this(), r](boost::system::error_code ec) {
    if (ec || r->stopped) return;
    if (auto self = weak.lock()) {
      self->renew();
      self->schedule_renewal();
    }
  });
}

void SharedState::stop() {
  auto r = renewal_;
  asio::post(r->strand, [r] {
    r->stopped = true;
    r->timer.cancel();
  });
  redis_->stop();
}

std::string SharedState::key_name(std::string_view kind, std::string_view id) const {
  std::string k;
  k.reserve(o_.prefix.size() + kind.size() + 1 + id.size());
  k.append(o_.prefix).append(kind).append(":").append(id);
  return k;
}

void SharedState::eval(const Script& s, std::vector<std::string> keys_args, int nkeys,
                       redis::Callback done) {
  std::vector<std::string> argv;
  argv.reserve(keys_args.size() + 3);
  argv.emplace_back("EVALSHA");
  argv.push_back(s.sha);
  argv.push_back(std::to_string(nkeys));
  for (auto& a : keys_args) argv.push_back(a);
  // After a Redis restart its script cache is empty: the script itself once
  // (EVAL caches it again), then EVALSHA as before.
  redis_->command(std::move(argv), [self = shared_from_this(), body = s.body, nkeys,
                                    keys_args = std::move(keys_args),
                                    done = std::move(done)](Result<redis::Reply> r) mutable {
    if (!(r && r->is_error() && r->str.starts_with("NOSCRIPT"))) return done(std::move(r));
    std::vector<std::string> argv{"EVAL", std::string(body), std::to_string(nkeys)};
    for (auto& a : keys_args) argv.push_back(std::move(a));
    self->redis_->command(std::move(argv), std::move(done));
  });
}

void SharedState::fallback(int feature, const Error& why) {
  fallbacks_[feature].fetch_add(1, std::memory_order_relaxed);
  int64_t now = now_ms(), last = last_log_[feature].load(std::memory_order_relaxed);
  if (now - last < 10'000 && last != 0) return;
  if (!last_log_[feature].compare_exchange_strong(last, now)) return;
  std::string line = std::string("shared state: ") + kFeatureNames[feature] + ": " + why.message;
  if (feature == kRequests || feature == kStreams)
    line += o_.limits_fail_open ? " — this replica's own counters apply meanwhile"
                                : " — refusing (limits_on_failure: closed)";
  line += " (" + std::to_string(fallbacks_[feature].load()) + " so far)";
  if (log_) log_(line);
}

void SharedState::take_request(GatewayKey& key, TakeDone done) {
  int rpm = key.config().requests_per_minute;
  if (rpm <= 0) return done(std::optional<int>());
  eval(take_, {key_name("rpm", key.shared_id()), std::to_string(rpm)}, 1,
       [self = shared_from_this(), &key, done = std::move(done)](Result<redis::Reply> r) {
         r = checked(std::move(r));
         if (r && r->type == redis::Reply::Type::integer)
           return done(r->integer == 0 ? std::optional<int>()
                                       : std::optional<int>(static_cast<int>(r->integer)));
         Error e = r ? make_error(ErrorCode::unavailable, "Redis: unexpected reply") : r.error();
         self->fallback(kRequests, e);
         if (!self->o_.limits_fail_open) {
           self->refused_.fetch_add(1, std::memory_order_relaxed);
           return done(make_error(ErrorCode::unavailable,
                                  "the shared rate limiter (Redis) is unavailable: " + e.message));
         }
         done(key.take_request(std::chrono::steady_clock::now()));
       });
}

void SharedState::open_stream(GatewayKey& key, OpenDone done) {
  int max = key.config().max_concurrent_streams;
  if (max <= 0) return done(std::optional<StreamSlot>(StreamSlot{}));
  StreamSlot slot{true, key_name("streams", key.shared_id()),
                  replica_ + ":" + std::to_string(next_lease_.fetch_add(1))};
  eval(
      open_, {slot.set, std::to_string(max), slot.id, std::to_string(o_.stream_lease.count())}, 1,
      [self = shared_from_this(), &key, slot,
       done = std::move(done)](Result<redis::Reply> r) mutable {
        r = checked(std::move(r));
        if (r && r->type == redis::Reply::Type::integer) {
          if (r->integer == 0) return done(std::optional<StreamSlot>());
          {
            std::lock_guard lock(self->mu_);
            self->leases_[slot.set].insert(slot.id);
          }
          return done(std::optional<StreamSlot>(std::move(slot)));
        }
        Error e = r ? make_error(ErrorCode::unavailable, "Redis: unexpected reply") : r.error();
        self->fallback(kStreams, e);
        if (!self->o_.limits_fail_open) {
          self->refused_.fetch_add(1, std::memory_order_relaxed);
          return done(make_error(ErrorCode::unavailable,
                                 "the shared stream limiter (Redis) is unavailable: " + e.message));
        }
        if (!key.open_stream()) return done(std::optional<StreamSlot>());
        done(std::optional<StreamSlot>(StreamSlot{}));
      });
}

void SharedState::close_stream(GatewayKey& key, const StreamSlot& slot) {
  if (!slot.shared) {
    if (key.config().max_concurrent_streams > 0) key.close_stream();
    return;
  }
  {
    std::lock_guard lock(mu_);
    auto it = leases_.find(slot.set);
    if (it != leases_.end()) {
      it->second.erase(slot.id);
      if (it->second.empty()) leases_.erase(it);
    }
  }
  // If this fails, the lease runs out by itself (stream_lease).
  redis_->command({"ZREM", slot.set, slot.id}, [](Result<redis::Reply>) {});
}

// Every open lease of this replica, renewed: one script per key, sent
// together (pipelined).
void SharedState::renew() {
  std::map<std::string, std::set<std::string>> leases;
  {
    std::lock_guard lock(mu_);
    leases = leases_;
  }
  for (auto& [set, ids] : leases) {
    std::vector<std::string> args{set, std::to_string(o_.stream_lease.count())};
    args.insert(args.end(), ids.begin(), ids.end());
    eval(renew_, std::move(args), 1, [](Result<redis::Reply>) {});
  }
}

void SharedState::fetch(const std::string& response_id, const std::vector<std::string>& item_ids,
                        std::function<void(Result<Found>)> done) {
  std::vector<std::string> argv{"MGET"};
  argv.push_back(key_name("response", sha256_hex(response_id)));
  for (const auto& id : item_ids) argv.push_back(key_name("item", sha256_hex(id)));
  redis_->command(std::move(argv), [self = shared_from_this(), has_response = !response_id.empty(),
                                    n = item_ids.size(),
                                    done = std::move(done)](Result<redis::Reply> r) {
    r = checked(std::move(r));
    if (!r || r->type != redis::Reply::Type::array || r->elements.size() != n + 1) {
      Error e = r ? make_error(ErrorCode::unavailable, "Redis: unexpected reply") : r.error();
      self->fallback(kLookups, e);
      return done(make_error(ErrorCode::unavailable,
                             "the shared response store (Redis) is unavailable: " + e.message));
    }
    Found f;
    const auto& el = r->elements;
    if (has_response && el[0].type == redis::Reply::Type::string)
      f.conversation = decode_messages(el[0].str);
    for (size_t i = 0; i < n; ++i)
      f.items.push_back(el[i + 1].type == redis::Reply::Type::string ? decode_parts(el[i + 1].str)
                                                                     : std::nullopt);
    done(std::move(f));
  });
}

void SharedState::store(const std::string& response_id,
                        const std::vector<ir::Message>& conversation,
                        const std::vector<dialects::StoredItem>& items,
                        std::function<void()> done) {
  std::string value = encode_messages(conversation);
  std::vector<std::string> item_values;
  size_t total = value.size();
  for (const auto& item : items) {
    item_values.push_back(encode_parts(item.parts));
    total += item_values.back().size();
  }
  if (total > o_.max_response_bytes) {
    too_big_.fetch_add(1, std::memory_order_relaxed);
    return done();
  }
  std::string ttl = std::to_string(o_.response_ttl.count());
  auto report = [self = shared_from_this()](Result<redis::Reply> r) {
    r = checked(std::move(r));
    if (!r) self->fallback(kWrites, r.error());
  };
  // Items first: an answer is found only once all of it is there.
  for (size_t i = 0; i < items.size(); ++i)
    redis_->command(
        {"SET", key_name("item", sha256_hex(items[i].id)), std::move(item_values[i]), "EX", ttl},
        report);
  // The answer last: its reply (replies come in order) says all of it is there.
  redis_->command(
      {"SET", key_name("response", sha256_hex(response_id)), std::move(value), "EX", ttl},
      [report, done = std::move(done)](Result<redis::Reply> r) {
        report(std::move(r));
        done();
      });
  stored_.fetch_add(1, std::memory_order_relaxed);
}

std::string SharedState::metrics_text() const {
  redis::Client::Stats s = redis_->stats();
  std::string out;
  auto line = [&](const char* help, const char* type, const std::string& sample) {
    out += help;
    out += type;
    out += sample;
  };
  line("# HELP toolwire_redis_up 1 while connected to Redis\n", "# TYPE toolwire_redis_up gauge\n",
       "toolwire_redis_up " + std::to_string(redis_->connected() ? 1 : 0) + "\n");
  line("# HELP toolwire_redis_commands_total Redis commands sent\n",
       "# TYPE toolwire_redis_commands_total counter\n",
       "toolwire_redis_commands_total " + std::to_string(s.commands) + "\n");
  line("# HELP toolwire_redis_failures_total Redis commands that got no reply (down, late, lost)\n",
       "# TYPE toolwire_redis_failures_total counter\n",
       "toolwire_redis_failures_total " + std::to_string(s.failed) + "\n");
  line("# HELP toolwire_redis_timeouts_total Redis commands past their deadline\n",
       "# TYPE toolwire_redis_timeouts_total counter\n",
       "toolwire_redis_timeouts_total " + std::to_string(s.timeouts) + "\n");
  line("# HELP toolwire_redis_connects_total connections made to Redis\n",
       "# TYPE toolwire_redis_connects_total counter\n",
       "toolwire_redis_connects_total " + std::to_string(s.connects) + "\n");
  out +=
      "# HELP toolwire_shared_state_fallback_total shared-state operations Redis failed "
      "(limits: the replica's own counters applied, or refused when they fail closed)\n"
      "# TYPE toolwire_shared_state_fallback_total counter\n";
  for (int f = 0; f < 4; ++f)
    out += std::string("toolwire_shared_state_fallback_total{feature=\"") + kFeatureNames[f] +
           "\"} " + std::to_string(fallbacks_[f].load()) + "\n";
  line(
      "# HELP toolwire_shared_state_refused_total requests refused because Redis failed "
      "(limits_on_failure: closed)\n",
      "# TYPE toolwire_shared_state_refused_total counter\n",
      "toolwire_shared_state_refused_total " + std::to_string(refused_.load()) + "\n");
  line("# HELP toolwire_shared_responses_stored_total answers written to the shared store\n",
       "# TYPE toolwire_shared_responses_stored_total counter\n",
       "toolwire_shared_responses_stored_total " + std::to_string(stored_.load()) + "\n");
  line("# HELP toolwire_shared_responses_too_big_total answers not stored: over max_response_kb\n",
       "# TYPE toolwire_shared_responses_too_big_total counter\n",
       "toolwire_shared_responses_too_big_total " + std::to_string(too_big_.load()) + "\n");
  line("# HELP toolwire_conductor_session_writes_total conductor session steps written to Redis\n",
       "# TYPE toolwire_conductor_session_writes_total counter\n",
       "toolwire_conductor_session_writes_total " + std::to_string(session_writes_.load()) + "\n");
  line(
      "# HELP toolwire_conductor_session_write_failures_total session steps Redis did not take "
      "(not durable: a takeover resumes from an earlier step)\n",
      "# TYPE toolwire_conductor_session_write_failures_total counter\n",
      "toolwire_conductor_session_write_failures_total " +
          std::to_string(session_write_failures_.load()) + "\n");
  line("# HELP toolwire_conductor_takeovers_total sessions this replica took over from another\n",
       "# TYPE toolwire_conductor_takeovers_total counter\n",
       "toolwire_conductor_takeovers_total " + std::to_string(takeovers_.load()) + "\n");
  return out;
}

}  // namespace toolwire::gateway::shared_state
