#include "gateway/routes/console_endpoint.h"

#include "gateway/console/assets.h"
#include "gateway/routes/errors.h"

namespace toolwire::gateway::routes {
namespace {

// Only the console's own files and the gateway's own JSON: no inline script
// or style, no other origin, no framing (clickjacking), no plugins.
constexpr std::string_view kPolicy =
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

// Does If-None-Match name `etag` (a list, or *)?
bool matches(std::string_view if_none_match, std::string_view etag) {
  if (if_none_match == "*") return true;
  while (!if_none_match.empty()) {
    size_t comma = if_none_match.find(',');
    std::string_view tag = if_none_match.substr(0, comma);
    while (!tag.empty() && tag.front() == ' ') tag.remove_prefix(1);
    while (!tag.empty() && tag.back() == ' ') tag.remove_suffix(1);
    if (tag.starts_with("W/")) tag.remove_prefix(2);
    if (tag == etag) return true;
    if (comma == std::string_view::npos) break;
    if_none_match.remove_prefix(comma + 1);
  }
  return false;
}

}  // namespace

void handle_console(http::Exchange& ex, const http::Request& req, std::string_view path) {
  std::string_view name = path == "/ui" ? std::string_view("index.html") : path.substr(4);
  const console::Asset* a = console::find_asset(name);
  if (!a)
    return send_error(ex, dialect_of(req), 404, ErrorCode::not_found,
                      "no console file " + std::string(path) + " (the console is at GET /ui)");
  // Revalidated each time (an upgraded binary serves new files under the
  // same names); the ETag makes that a 304.
  http::Headers headers = {{"cache-control", "no-cache"},
                           {"etag", std::string(a->etag)},
                           {"content-security-policy", std::string(kPolicy)},
                           {"x-content-type-options", "nosniff"},
                           {"referrer-policy", "no-referrer"},
                           {"x-frame-options", "DENY"}};
  if (matches(req.header("if-none-match"), a->etag))
    return ex.respond(304, a->content_type, "", headers);
  ex.respond(200, a->content_type, a->body, headers);
}

}  // namespace toolwire::gateway::routes
