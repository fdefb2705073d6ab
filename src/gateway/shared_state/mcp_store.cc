// MCP sessions in Redis: what another replica needs to serve a session it
// did not open (its key and negotiated version), under a hash of the
// session id (the id is a bearer secret).
#include <string>
#include <utility>

#include "gateway/shared_state/shared_state.h"

namespace toolwire::gateway::shared_state {

void SharedState::save_mcp_session(const std::string& id, const McpSession& s,
                                   std::chrono::milliseconds ttl, std::function<void()> done) {
  std::string k = key_name("mcp", sha256_hex(id));
  redis_->command({"HSET", k, "key", s.key, "version", s.version}, [](Result<redis::Reply>) {});
  redis_->command({"PEXPIRE", k, std::to_string(std::max<int64_t>(1, ttl.count()))},
                  [self = shared_from_this(), done = std::move(done)](Result<redis::Reply> r) {
                    if (!r || r->is_error())
                      self->session_write_failures_.fetch_add(1, std::memory_order_relaxed);
                    done();
                  });
}

void SharedState::fetch_mcp_session(const std::string& id,
                                    std::function<void(Result<std::optional<McpSession>>)> done) {
  redis_->command({"HMGET", key_name("mcp", sha256_hex(id)), "key", "version"},
                  [done = std::move(done)](Result<redis::Reply> r) {
                    if (!r) return done(r.error());
                    if (r->is_error())
                      return done(make_error(ErrorCode::unavailable, "Redis: " + r->str));
                    const auto& e = r->elements;
                    if (e.size() != 2 || e[0].type != redis::Reply::Type::string ||
                        e[1].type != redis::Reply::Type::string)
                      return done(std::optional<McpSession>());
                    return done(std::optional<McpSession>(McpSession{e[0].str, e[1].str}));
                  });
}

void SharedState::touch_mcp_session(const std::string& id, std::chrono::milliseconds ttl) {
  redis_->command({"PEXPIRE", key_name("mcp", sha256_hex(id)),
                   std::to_string(std::max<int64_t>(1, ttl.count()))},
                  [](Result<redis::Reply>) {});
}

void SharedState::drop_mcp_session(const std::string& id) {
  redis_->command({"DEL", key_name("mcp", sha256_hex(id))}, [](Result<redis::Reply>) {});
}

}  // namespace toolwire::gateway::shared_state
