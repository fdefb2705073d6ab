#include "server/routes/router.h"

#include "server/routes/errors.h"
#include "server/routes/info.h"
#include "server/routes/model_call.h"

namespace toolwire::server::routes {
namespace {

using boost::beast::http::verb;

void not_found(http::Exchange& ex, const http::Request& req) {
  Dialect d = dialect_for(req.path(), req.header("anthropic-version"));
  send_error(ex, d, 404, ErrorCode::not_found,
             "no route " + req.method_text + " " + std::string(req.path()) +
                 " (this gateway serves POST /v1/chat/completions, POST /v1/messages, "
                 "GET /v1/models, GET /health, GET /ready, GET /metrics)");
}

void wrong_method(http::Exchange& ex, const http::Request& req, std::string_view allowed) {
  Dialect d = dialect_for(req.path(), req.header("anthropic-version"));
  send_error(ex, d, 405, ErrorCode::invalid_argument,
             req.method_text + " is not allowed on " + std::string(req.path()) + " (use " +
                 std::string(allowed) + ")",
             {}, {{"allow", std::string(allowed)}});
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
    if (path == "/v1/chat/completions" || path == "/chat/completions") {
      if (only(verb::post, "POST"))
        handle_model_call(ctx, Dialect::openai_chat, "/v1/chat/completions", ex, std::move(req));
      return;
    }
    if (path == "/v1/messages") {
      if (only(verb::post, "POST"))
        handle_model_call(ctx, Dialect::anthropic_messages, "/v1/messages", ex, std::move(req));
      return;
    }
    if (path == "/v1/messages/count_tokens") {
      if (only(verb::post, "POST"))
        send_error(*ex, Dialect::anthropic_messages, 501, ErrorCode::unimplemented,
                   "count_tokens is not supported by this gateway's upstreams");
      return;
    }
    if (path == "/v1/models" || path == "/models") {
      if (only(verb::get, "GET")) handle_models(*ctx, *ex, req);
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
        ex->respond(200, "text/plain; version=0.0.4; charset=utf-8", ctx->metrics.text());
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

}  // namespace toolwire::server::routes
