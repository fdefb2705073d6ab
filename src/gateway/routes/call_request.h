// A model-call request as the gateway takes it: the limits it refuses
// before any other work, and the deadline the caller's SDK announced.
#pragma once

#include <cstdint>
#include <optional>

#include "gateway/http/exchange.h"
#include "toolwire/core/result.h"
#include "toolwire/gateway/gateway.h"
#include "toolwire/ir/request.h"

namespace toolwire::gateway::routes {

// invalid_argument for too many messages or tools.
std::optional<Error> check_limits(const ir::Request& request, const Limits& limits);

// How long the caller waits for its answer, when it says so: SDKs generated
// by Stainless send their request timeout as `x-stainless-timeout`
// (seconds). The upstream call — its retries and their retry-after waits
// included — never runs past it (nor past the upstream's own timeout).
std::optional<int64_t> client_deadline_ms(const http::Request& req);

}  // namespace toolwire::gateway::routes
