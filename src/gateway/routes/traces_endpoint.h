// GET /v1/traces (filters: key, model, status, errors, limit),
// GET /v1/traces/{id} and GET /v1/traces/stats (window, bucket, key): the
// trace store's JSON (docs/traces.md, docs/console.md). With gateway keys, a
// key reads its own traces only (another key's do not exist to it); an
// admin key (`admin: true`) reads every key's.
#pragma once

#include <string_view>

#include "gateway/http/exchange.h"
#include "gateway/routes/context.h"

namespace toolwire::gateway::routes {

void handle_traces(RouteContext& ctx, http::Exchange& ex, const http::Request& req,
                   std::string_view path, std::string_view query, const GatewayKey* key);

}  // namespace toolwire::gateway::routes
