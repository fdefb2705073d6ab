#include "gateway/routes/router.h"

#include <algorithm>
#include <vector>

#include "gateway/conductor/conductor.h"

#include "gateway/routes/console_endpoint.h"
#include "gateway/routes/errors.h"
#include "gateway/routes/info.h"
#include "gateway/routes/ingress.h"
#include "gateway/routes/mcp_endpoint.h"
#include "gateway/routes/model_call.h"
#include "gateway/routes/traces_endpoint.h"
#include "toolwire/dialects/ingress.h"

namespace toolwire::gateway::routes {
namespace {

using boost::beast::http::verb;

void not_found(http::Exchange& ex, const http::Request& req) {
  // Built once: the dialect list does not change while the process runs.
  static const std::string served =
      dialects::served_routes() +
      ", GET /v1/models, GET /v1/conductor (WebSocket), GET /v1/conductor/sessions, POST /mcp, "
      "GET /v1/traces, GET /v1/traces/{id}, GET /v1/traces/stats, GET /ui, GET /health, "
      "GET /ready, GET /metrics";
  send_error(ex, dialect_of(req), 404, ErrorCode::not_found,
             "no route " + req.method_text + " " + std::string(req.path()) +
                 " (this gateway serves " + served + ")");
}

void wrong_method(http::Exchange& ex, const http::Request& req, std::string_view allowed) {
  send_error(ex, dialect_of(req), 405, ErrorCode::invalid_argument,
             req.method_text + " is not allowed on " + std::string(req.path()) + " (use " +
                 std::string(allowed) + ")",
             {}, {{"allow", std::string(allowed)}});
}

// "A, B, or C": every way a dialect presents a key, for the 401 that asks
// for one.
std::string key_forms() {
  std::vector<std::string_view> forms;
  for (const Dialect& d : dialects::all_dialects()) {
    std::string_view f = d.ingress.key_help;
    if (!f.empty() && std::find(forms.begin(), forms.end(), f) == forms.end()) forms.push_back(f);
  }
  std::string out;
  for (size_t i = 0; i < forms.size(); ++i) {
    if (i > 0) out += i + 1 == forms.size() ? ", or " : ", ";
    out += forms[i];
  }
  return out;
}

struct Unserved {
  const Dialect* dialect;
  const dialects::UnservedRoute* route;
};

std::optional<Unserved> find_unserved(std::string_view path) {
  for (const Dialect& d : dialects::all_dialects())
    for (const auto& r : d.ingress.unserved)
      if (r.path == path) return Unserved{&d, &r};
  return std::nullopt;
}

}  // namespace

// A key's per-minute budget is spent: 429 with retry-after.
void rate_limited(RouteContext& ctx, http::Exchange& ex, const Dialect& d, const GatewayKey& key,
                  std::string_view route, int wait) {
  send_error(ex, d, 429, ErrorCode::resource_exhausted,
             "rate limit of key '" + key.config().name +
                 "': " + std::to_string(key.config().requests_per_minute) + " requests per minute",
             {}, {{"retry-after", std::to_string(wait)}});
  ctx.metrics.request(route, "unknown", 429, 0);
}

// The caller's gateway key, when the gateway has keys: 401 when missing or
// unknown, 429 (with retry-after) when its per-minute budget is spent.
// Otherwise `next(key, request)`: at once with the in-process limiter; with
// the shared one (Redis), once it answered, on the exchange's strand.
// `route`: the endpoint's label in metrics (a fixed string, never the raw
// path: a caller without a key must not grow the series).
template <class Next>
void authorize(const std::shared_ptr<RouteContext>& ctx, const std::shared_ptr<http::Exchange>& ex,
               http::Request&& req, std::string_view route, Next&& next) {
  if (!ctx->keys || ctx->keys->empty()) return next(nullptr, std::move(req));
  const Dialect& d = dialect_of(req);
  std::string_view target = req.target;
  std::string_view query =
      target.find('?') == target.npos ? std::string_view() : target.substr(target.find('?') + 1);
  std::string_view presented =
      dialects::presented_key([&](std::string_view name) { return req.header(name); }, &d, query);
  GatewayKey* key = ctx->keys->authenticate(presented);
  if (!key) {
    send_error(*ex, d, 401, ErrorCode::unauthenticated,
               presented.empty() ? "a gateway key is required (" + key_forms() + ")"
                                 : std::string("invalid gateway key"));
    ctx->metrics.request(route, "unknown", 401, 0);
    return;
  }
  if (!ctx->shared || key->config().requests_per_minute <= 0) {
    if (auto wait = key->take_request(http::Clock::now()))
      return rate_limited(*ctx, *ex, d, *key, route, *wait);
    return next(key, std::move(req));
  }
  // One round trip to Redis; the request waits in memory, holding no thread.
  auto held = std::make_shared<std::pair<http::Request, std::decay_t<Next>>>(
      std::move(req), std::forward<Next>(next));
  ctx->shared->take_request(
      *key, [ctx, ex, key, dp = &d, route, held](Result<std::optional<int>> r) {
        ex->post([ctx, ex, key, dp, route, held, r = std::move(r)] {
          if (!r) {  // Redis failed and the limits fail closed
            send_error(*ex, *dp, 503, ErrorCode::unavailable, r.error().message);
            ctx->metrics.request(route, "unknown", 503, 0);
            return;
          }
          if (*r) return rate_limited(*ctx, *ex, *dp, *key, route, **r);
          held->second(key, std::move(held->first));
        });
      });
}

namespace {

// With gateway keys, an admin key (`admin: true`) only: 403 for another.
// Call after authorize(). Returns false when it answered.
bool admin_only(http::Exchange& ex, const http::Request& req, const GatewayKey* key) {
  if (!key || key->config().admin) return true;
  send_error(ex, dialect_of(req), 403, ErrorCode::permission_denied,
             "key '" + key->config().name + "' is not an admin key (keys: admin: true)");
  return false;
}

}  // namespace

http::Handler make_router(std::shared_ptr<RouteContext> ctx) {
  return [ctx](std::shared_ptr<http::Exchange> ex, http::Request&& req) {
    std::string_view path = req.path();
    if (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
    auto only = [&](verb v, std::string_view name) {
      if (req.method == v) return true;
      wrong_method(*ex, req, name);
      return false;
    };
    std::string_view target = req.target;
    std::string_view query =
        target.find('?') == target.npos ? std::string_view() : target.substr(target.find('?') + 1);
    if (auto call = dialects::match_model_call(path, query)) {
      // The key first: a caller without one learns nothing of the route.
      std::string_view route =
          call->match ? call->match->route : call->dialect->ingress.route_family;
      authorize(ctx, ex, std::move(req), route,
                [ctx, ex, call = std::move(*call)](GatewayKey* key, http::Request&& req) mutable {
                  if (req.method != verb::post) return wrong_method(*ex, req, "POST");
                  if (!call.match) {
                    send_error(*ex, *call.dialect, call.match.error());
                    ctx->metrics.request(call.dialect->ingress.route_family, "unknown",
                                         call.match.error().http_status, 0);
                    return;
                  }
                  dialects::RouteMatch& m = *call.match;
                  handle_model_call(ctx,
                                    Ingress{call.dialect, m.route, std::move(m.model), m.stream},
                                    key, ex, std::move(req));
                });
      return;
    }
    if (auto unserved = find_unserved(path)) {
      authorize(ctx, ex, std::move(req), unserved->route->path,
                [ex, u = *unserved](GatewayKey*, http::Request&& req) {
                  auto v = boost::beast::http::string_to_verb(
                      {u.route->method.data(), u.route->method.size()});
                  if (req.method != v) return wrong_method(*ex, req, u.route->method);
                  send_error(*ex, *u.dialect, 501, ErrorCode::unimplemented,
                             std::string(u.route->reason));
                });
      return;
    }
    if (path == "/v1/models" || path == "/models") {
      authorize(ctx, ex, std::move(req), "/v1/models", [ctx, ex](GatewayKey*, http::Request&& req) {
        if (req.method != verb::get) return wrong_method(*ex, req, "GET");
        handle_models(*ctx, *ex, req);
      });
      return;
    }
    if (path == "/v1/traces" || path.starts_with("/v1/traces/")) {
      authorize(ctx, ex, std::move(req), "/v1/traces",
                [ctx, ex](GatewayKey* key, http::Request&& req) {
                  if (req.method != verb::get) return wrong_method(*ex, req, "GET");
                  // The views again, on the request as it is now (it moved).
                  std::string_view target = req.target;
                  size_t q = target.find('?');
                  std::string_view path = target.substr(0, q);
                  if (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
                  handle_traces(*ctx, *ex, req, path,
                                q == target.npos ? std::string_view() : target.substr(q + 1), key);
                });
      return;
    }
    if (path == "/v1/conductor/sessions") {
      authorize(ctx, ex, std::move(req), "/v1/conductor/sessions",
                [ctx, ex](GatewayKey* key, http::Request&& req) {
                  if (!admin_only(*ex, req, key)) return;
                  if (req.method != verb::get) return wrong_method(*ex, req, "GET");
                  ex->respond(200, "application/json", ctx->conductor->sessions_json());
                });
      return;
    }
    if (path == "/ui" || path.starts_with("/ui/")) {
      if (only(verb::get, "GET")) handle_console(*ex, req, path);
      return;
    }
    if (path == "/mcp") {
      authorize(ctx, ex, std::move(req), "/mcp", [ctx, ex](GatewayKey* key, http::Request&& req) {
        ctx->mcp->handle(ex, std::move(req), key);
      });
      return;
    }
    if (path == "/v1/conductor") {
      if (only(verb::get, "GET")) ctx->conductor->handle(ex, std::move(req));
      return;
    }
    if (path == "/health") {
      if (only(verb::get, "GET")) ex->respond(200, "application/json", R"({"status":"ok"})");
      return;
    }
    if (path == "/ready") {
      if (!only(verb::get, "GET")) return;
      if (!ctx->ready.load())
        ex->respond(503, "application/json", R"({"status":"not ready"})");
      else if (ctx->shared && !ctx->shared->connected())
        // Served meanwhile (limits on this replica's counters), but not as
        // configured: a balancer may prefer a replica that reaches Redis.
        ex->respond(503, "application/json", R"({"status":"not ready","redis":"unavailable"})");
      else
        ex->respond(200, "application/json", R"({"status":"ready"})");
      return;
    }
    if (path == "/metrics") {
      if (only(verb::get, "GET"))
        ex->respond(200, "text/plain; version=0.0.4; charset=utf-8",
                    ctx->metrics.text() + ctx->conductor->metrics_text() +
                        (ctx->shared ? ctx->shared->metrics_text() : std::string()) +
                        (ctx->otlp ? telemetry::otlp_metrics_text(ctx->otlp->counters()) : "") +
                        (ctx->traces ? ctx->traces->metrics_text() : ""));
      return;
    }
    not_found(*ex, req);
  };
}

http::ProtocolErrorWriter make_protocol_error_writer() {
  return [](http::Exchange& ex, int status, std::string_view path, std::string_view message) {
    ErrorCode code = status == 413 || status == 431 ? ErrorCode::resource_exhausted
                     : status == 408                ? ErrorCode::deadline_exceeded
                                                    : ErrorCode::invalid_argument;
    send_error(ex, dialect_of_path(path), status, code, std::string(message));
  };
}

}  // namespace toolwire::gateway::routes
