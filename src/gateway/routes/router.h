// Method + path → route. The one list of the gateway's endpoints.
#pragma once

#include <memory>

#include "gateway/http/session.h"
#include "gateway/routes/context.h"

namespace toolwire::gateway::routes {

http::Handler make_router(std::shared_ptr<RouteContext> ctx);
// The session's writer for requests that failed before routing.
http::ProtocolErrorWriter make_protocol_error_writer();

}  // namespace toolwire::gateway::routes
