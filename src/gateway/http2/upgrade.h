// h2c by Upgrade (RFC 7540 section 3.2): an HTTP/1.1 request with
// `Upgrade: h2c`, `Connection: Upgrade, HTTP2-Settings` and the client's
// SETTINGS payload in `HTTP2-Settings` (base64url). The session answers 101
// and the request becomes stream 1 of the HTTP/2 connection that follows.
#pragma once

#include <optional>
#include <string>

#include "gateway/http/exchange.h"

namespace toolwire::gateway::http2 {

// The decoded SETTINGS payload when `r` asks for h2c and says it well;
// nullopt otherwise (the request is then served over HTTP/1.1 as it is).
std::optional<std::string> h2c_upgrade_settings(const http::Request& r);

// The status line and headers of the switch.
inline constexpr std::string_view kSwitchingProtocols =
    "HTTP/1.1 101 Switching Protocols\r\nconnection: Upgrade\r\nupgrade: h2c\r\n\r\n";

}  // namespace toolwire::gateway::http2
