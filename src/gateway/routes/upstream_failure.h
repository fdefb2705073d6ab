// An upstream's failure, seen from the gateway: whether the call moves on to
// the route's next target (before the first byte reached the client), the
// metric label it counts under, and the answer the caller gets instead
// (docs/gateway.md, "Upstream failures").
#pragma once

#include <string>
#include <string_view>

#include "toolwire/core/result.h"

namespace toolwire::gateway::routes {

// Worth trying the next target: 5xx, 429, no (readable) answer, a timeout.
bool retryable(const Error& e);
// The `error_kind` label of toolwire_upstream_attempts_total.
std::string_view error_kind(const Error& e);
// The gateway's own answer for an upstream's error (502, 503, 504, or the
// upstream's 4xx passed on); any other error unchanged.
Error gateway_error(Error e);

}  // namespace toolwire::gateway::routes
