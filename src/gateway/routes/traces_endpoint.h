// GET /v1/traces (filters: key, model, status, errors, limit) and
// GET /v1/traces/{id}: the trace store's JSON (docs/traces.md). With gateway
// keys, a key reads its own traces only (another key's do not exist to it).
#pragma once

#include <string_view>

#include "gateway/http/exchange.h"
#include "gateway/routes/context.h"

namespace toolwire::gateway::routes {

void handle_traces(RouteContext& ctx, http::Exchange& ex, const http::Request& req,
                   std::string_view path, std::string_view query, const GatewayKey* key);

}  // namespace toolwire::gateway::routes
