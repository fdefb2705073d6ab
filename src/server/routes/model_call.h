// POST /v1/chat/completions and POST /v1/messages (see model_call.cc).
#pragma once

#include <memory>
#include <string_view>

#include "server/http/exchange.h"
#include "server/routes/context.h"
#include "server/routes/errors.h"

namespace toolwire::server::routes {

// `route` names the endpoint in logs and metrics; it must outlive the call
// (a string literal).
// `key`: the caller's gateway key (null when the gateway has none).
void handle_model_call(std::shared_ptr<RouteContext> ctx, Dialect dialect, std::string_view route,
                       GatewayKey* key, std::shared_ptr<http::Exchange> ex, http::Request&& req);

}  // namespace toolwire::server::routes
