#include "gateway/routes/router.h"

#include "gateway/conductor/conductor.h"

#include "gateway/routes/errors.h"
#include "gateway/routes/info.h"
#include "gateway/routes/ingress.h"
#include "gateway/routes/mcp_endpoint.h"
#include "gateway/routes/model_call.h"

namespace toolwire::gateway::routes {
namespace {

using boost::beast::http::verb;

void not_found(http::Exchange& ex, const http::Request& req) {
  Dialect d = dialect_for(req.path(), req.header("anthropic-version"));
  send_error(ex, d, 404, ErrorCode::not_found,
             "no route " + req.method_text + " " + std::string(req.path()) +
                 " (this gateway serves POST /v1/chat/completions, POST /v1/messages, "
                 "POST /v1/responses, POST /v1beta/models/{model}:generateContent and "
                 ":streamGenerateContent?alt=sse, POST /model/{modelId}/converse and "
                 "/converse-stream, GET /v1/models, GET /v1/conductor (WebSocket), POST /mcp, "
                 "GET /health, GET /ready, GET /metrics)");
}

void wrong_method(http::Exchange& ex, const http::Request& req, std::string_view allowed) {
  Dialect d = dialect_for(req.path(), req.header("anthropic-version"));
  send_error(ex, d, 405, ErrorCode::invalid_argument,
             req.method_text + " is not allowed on " + std::string(req.path()) + " (use " +
                 std::string(allowed) + ")",
             {}, {{"allow", std::string(allowed)}});
}

}  // namespace

// The caller's gateway key, when the gateway has keys: 401 when missing or
// unknown, 429 (with retry-after) when its per-minute budget is spent.
// Returns false when it answered.
bool authorize(RouteContext& ctx, http::Exchange& ex, const http::Request& req, GatewayKey*& key) {
  key = nullptr;
  if (!ctx.keys || ctx.keys->empty()) return true;
  Dialect d = dialect_for(req.path(), req.header("anthropic-version"));
  std::string_view presented = presented_key(req.header("authorization"), req.header("x-api-key"),
                                             req.header("x-goog-api-key"));
  // Gemini's REST API also takes the key as `?key=` (its older examples).
  std::string_view target = req.target;
  if (presented.empty() && d == Dialect::gemini && target.find('?') != target.npos)
    presented = query_param(target.substr(target.find('?') + 1), "key").value_or("");
  key = ctx.keys->authenticate(presented);
  if (!key) {
    send_error(ex, d, 401, ErrorCode::unauthenticated,
               presented.empty()
                   ? "a gateway key is required (Authorization: Bearer KEY, x-api-key: KEY, "
                     "x-goog-api-key: KEY, or a SigV4 signature whose access key id is KEY)"
                   : "invalid gateway key");
    ctx.metrics.request(req.path(), "unknown", 401, 0);
    return false;
  }
  if (auto wait = key->take_request(http::Clock::now())) {
    send_error(ex, d, 429, ErrorCode::resource_exhausted,
               "rate limit of key '" + key->config().name + "': " +
                   std::to_string(key->config().requests_per_minute) + " requests per minute",
               {}, {{"retry-after", std::to_string(*wait)}});
    ctx.metrics.request(req.path(), "unknown", 429, 0);
    return false;
  }
  return true;
}

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
    if (auto call = match_model_call(path, query)) {
      GatewayKey* key = nullptr;
      // The key first: a caller without one learns nothing of the route.
      if (!authorize(*ctx, *ex, req, key) || !only(verb::post, "POST")) return;
      if (!*call) {
        send_error(*ex, dialect_for(path), call->error());
        ctx->metrics.request(path.starts_with("/model/") ? "/model/{modelId}" : "/v1beta/models",
                             "unknown", call->error().http_status, 0);
        return;
      }
      handle_model_call(ctx, std::move(**call), key, ex, std::move(req));
      return;
    }
    if (path == "/v1/messages/count_tokens") {
      GatewayKey* key = nullptr;
      if (authorize(*ctx, *ex, req, key) && only(verb::post, "POST"))
        send_error(*ex, Dialect::anthropic_messages, 501, ErrorCode::unimplemented,
                   "count_tokens is not supported by this gateway's upstreams");
      return;
    }
    if (path == "/v1/models" || path == "/models") {
      GatewayKey* key = nullptr;
      if (authorize(*ctx, *ex, req, key) && only(verb::get, "GET")) handle_models(*ctx, *ex, req);
      return;
    }
    if (path == "/mcp") {
      GatewayKey* key = nullptr;
      if (authorize(*ctx, *ex, req, key)) ctx->mcp->handle(ex, std::move(req), key);
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
      if (ctx->ready.load())
        ex->respond(200, "application/json", R"({"status":"ready"})");
      else
        ex->respond(503, "application/json", R"({"status":"not ready"})");
      return;
    }
    if (path == "/metrics") {
      if (only(verb::get, "GET"))
        ex->respond(200, "text/plain; version=0.0.4; charset=utf-8",
                    ctx->metrics.text() + ctx->conductor->metrics_text());
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
    send_error(ex, dialect_for(path), status, code, std::string(message));
  };
}

}  // namespace toolwire::gateway::routes
