#include "gateway/routes/traces_endpoint.h"

#include "gateway/routes/errors.h"
#include "toolwire/telemetry/trace_store.h"

namespace toolwire::gateway::routes {
namespace {

bool hex_id(std::string_view id) {
  if (id.size() != 32) return false;
  for (char c : id)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

}  // namespace

void handle_traces(RouteContext& ctx, http::Exchange& ex, const http::Request& req,
                   std::string_view path, std::string_view query, const GatewayKey* key) {
  const Dialect& d = dialect_of(req);
  if (!ctx.traces)
    return send_error(ex, d, 404, ErrorCode::not_found,
                      "this gateway keeps no traces (telemetry: {traces: true}, or serve without "
                      "--no-traces)");
  // An admin key reads as if the gateway took no keys.
  if (key && key->config().admin) key = nullptr;
  if (path == "/v1/traces/stats") {
    auto q = telemetry::parse_stats_query(query);
    if (!q) return send_error(ex, d, 400, ErrorCode::invalid_argument, q.error().message);
    if (key) {
      // Answered whatever the other name: no key learns which others exist.
      if (!q->key.empty() && q->key != key->config().name)
        return send_error(
            ex, d, 403, ErrorCode::permission_denied,
            "key '" + key->config().name +
                "' reads its own traces' stats only (an admin key reads every key's)");
      q->key = key->config().name;
    }
    auto body = ctx.traces->stats(*q);
    if (!body) return send_error(ex, d, 503, ErrorCode::unavailable, body.error().message);
    return ex.respond(200, "application/json", *body);
  }
  if (path == "/v1/traces") {
    auto q = telemetry::parse_trace_query(query);
    if (!q) return send_error(ex, d, 400, ErrorCode::invalid_argument, q.error().message);
    if (key) {
      if (!q->key.empty() && q->key != key->config().name)
        return ex.respond(200, "application/json", R"({"traces":[]})");
      q->key = key->config().name;
    }
    auto body = ctx.traces->list(*q);
    if (!body) return send_error(ex, d, 503, ErrorCode::unavailable, body.error().message);
    return ex.respond(200, "application/json", *body);
  }
  std::string_view id = path.substr(std::string_view("/v1/traces/").size());
  if (!hex_id(id))
    return send_error(ex, d, 400, ErrorCode::invalid_argument,
                      "a trace id is 32 lower-case hex digits");
  auto body = ctx.traces->get(id);
  if (!body) return send_error(ex, d, 503, ErrorCode::unavailable, body.error().message);
  // Another key's trace is answered as none at all.
  if (*body && key && (*body)->key_name != key->config().name) body->reset();
  if (!*body) return send_error(ex, d, 404, ErrorCode::not_found, "no trace " + std::string(id));
  ex.respond(200, "application/json", (*body)->json);
}

}  // namespace toolwire::gateway::routes
