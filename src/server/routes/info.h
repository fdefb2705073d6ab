// GET /v1/models in the dialect the caller speaks.
#pragma once

#include "server/http/exchange.h"
#include "server/routes/context.h"

namespace toolwire::server::routes {

void handle_models(const RouteContext& ctx, http::Exchange& ex, const http::Request& req);

}  // namespace toolwire::server::routes
