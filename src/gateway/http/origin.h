// Which browser origins may use an endpoint that acts with the gateway's
// tools (GET /v1/conductor, POST /mcp). A request without Origin is not from
// a browser and is let through; a browser page is, by default, only from this
// machine: any web page a user visits could otherwise drive a local gateway
// and have its server tools read files.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace toolwire::gateway::http {

// http(s)://localhost, 127.0.0.1 or [::1], with any port.
bool local_origin(std::string_view origin);

// `allowed` empty: local origins only; else exactly those listed.
bool origin_allowed(std::string_view origin, const std::vector<std::string>& allowed);

}  // namespace toolwire::gateway::http
