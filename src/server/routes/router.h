// Method + path → route. The one list of the gateway's endpoints.
#pragma once

#include <memory>

#include "server/http/session.h"
#include "server/routes/context.h"

namespace toolwire::server::routes {

http::Handler make_router(std::shared_ptr<RouteContext> ctx);
// The session's writer for requests that failed before routing.
http::ProtocolErrorWriter make_protocol_error_writer();

}  // namespace toolwire::server::routes
