// GET /v1/models in the dialect the caller speaks.
#pragma once

#include "gateway/http/exchange.h"
#include "gateway/routes/context.h"

namespace toolwire::gateway::routes {

void handle_models(const RouteContext& ctx, http::Exchange& ex, const http::Request& req);

}  // namespace toolwire::gateway::routes
