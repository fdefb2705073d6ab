// Conductor sessions in Redis: one hash per session, written and owned
// through the scripts in scripts.h (atomic there, Redis's clock).
#include <string>
#include <utility>

#include "gateway/shared_state/shared_state.h"

namespace toolwire::gateway::shared_state {
namespace {

// A failed command, or an error reply, as one Error.
Result<redis::Reply> checked(Result<redis::Reply> r) {
  if (r && r->is_error()) return make_error(ErrorCode::unavailable, "Redis: " + r->str);
  return r;
}

Result<long long> integer(Result<redis::Reply> r) {
  r = checked(std::move(r));
  if (!r) return r.error();
  if (r->type != redis::Reply::Type::integer)
    return make_error(ErrorCode::internal, "Redis: unexpected reply to a session script");
  return r->integer;
}

}  // namespace

void SharedState::save_session(const std::string& id, std::vector<std::string> fields,
                               std::chrono::milliseconds ttl,
                               std::function<void(Result<long long>)> done) {
  std::vector<std::string> a{key_name("conductor", id), replica_,
                             std::to_string(o_.conductor_lease.count()),
                             std::to_string(std::max<int64_t>(1, ttl.count()))};
  for (auto& f : fields) a.push_back(std::move(f));
  session_writes_.fetch_add(1, std::memory_order_relaxed);
  eval(save_session_, std::move(a), 1,
       [self = shared_from_this(), done = std::move(done)](Result<redis::Reply> r) {
         auto n = integer(std::move(r));
         if (!n) self->session_write_failures_.fetch_add(1, std::memory_order_relaxed);
         done(std::move(n));
       });
}

void SharedState::renew_session(const std::string& id, std::chrono::milliseconds ttl,
                                std::function<void(Result<long long>)> done) {
  eval(renew_session_,
       {key_name("conductor", id), replica_, std::to_string(o_.conductor_lease.count()),
        std::to_string(std::max<int64_t>(1, ttl.count()))},
       1, [done = std::move(done)](Result<redis::Reply> r) { done(integer(std::move(r))); });
}

void SharedState::claim_session(const std::string& id, const std::string& token_hash,
                                const std::string& key, std::function<void(Result<Claim>)> done) {
  eval(claim_session_,
       {key_name("conductor", id), replica_, std::to_string(o_.conductor_lease.count()), token_hash,
        key},
       1, [self = shared_from_this(), done = std::move(done)](Result<redis::Reply> r) {
         r = checked(std::move(r));
         if (!r) return done(r.error());
         const auto& e = r->elements;
         if (r->type != redis::Reply::Type::array || e.empty() ||
             e[0].type != redis::Reply::Type::integer)
           return done(make_error(ErrorCode::internal, "Redis: unexpected reply to a claim"));
         Claim c;
         c.status = static_cast<int>(e[0].integer);
         for (size_t i = 1; i + 1 < e.size(); i += 2) c.fields[e[i].str] = e[i + 1].str;
         if (c.status == 1) self->takeovers_.fetch_add(1, std::memory_order_relaxed);
         done(std::move(c));
       });
}

void SharedState::release_session(const std::string& id, bool drop) {
  eval(release_session_, {key_name("conductor", id), replica_, drop ? "drop" : "release"}, 1,
       [](Result<redis::Reply>) {});
}

}  // namespace toolwire::gateway::shared_state
