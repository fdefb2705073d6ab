// Every ingress dialect's model-call endpoint (see model_call.cc).
#pragma once

#include <memory>

#include "gateway/http/exchange.h"
#include "gateway/routes/context.h"
#include "gateway/routes/ingress.h"

namespace toolwire::gateway::routes {

// `ingress`: the caller's dialect, the route's name for logs and metrics,
// and what the path says of the model and stream flag.
// `key`: the caller's gateway key (null when the gateway has none).
void handle_model_call(std::shared_ptr<RouteContext> ctx, Ingress ingress, GatewayKey* key,
                       std::shared_ptr<http::Exchange> ex, http::Request&& req);

}  // namespace toolwire::gateway::routes
