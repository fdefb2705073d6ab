// GET /ui and GET /ui/{file}: the console page (src/gateway/console/, built
// into the binary). The files hold no data, so they need no key; the page
// asks for an admin key and sends it to the JSON endpoints it reads
// (docs/console.md).
#pragma once

#include <string_view>

#include "gateway/http/exchange.h"

namespace toolwire::gateway::routes {

// `path`: "/ui" or "/ui/NAME" (no trailing slash).
void handle_console(http::Exchange& ex, const http::Request& req, std::string_view path);

}  // namespace toolwire::gateway::routes
