// toolwire/transport/redact.h — keeping secrets out of logs and errors.
//
// API keys travel in request headers (Authorization, x-api-key, ...) and
// sometimes in URLs (`?key=`, `user:pass@`). Anything that describes a request
// for a human goes through these first:
//
//   log("calling " + redact_url(req.url));                 // https://h/v1/x?<redacted>
//   for (auto& [n, v] : redacted_headers(req.headers)) ... // authorization: <redacted>
#pragma once

#include <string>
#include <string_view>

#include "toolwire/transport/http_types.h"

namespace toolwire::transport {

// authorization, proxy-authorization, cookie, set-cookie, and any name that
// contains "key", "token", "secret", "auth" or "password" (x-api-key,
// api-key, x-goog-api-key, x-auth-token, ...).
bool is_sensitive_header(std::string_view name);

// The URL without userinfo, query and fragment: "scheme://host:port/path".
std::string redact_url(std::string_view url);

// A copy with the values of sensitive headers replaced by "<redacted>".
HttpHeaders redacted_headers(const HttpHeaders& headers);

// Replaces in `text` every occurrence of a sensitive header's value (and of
// its bearer token) by "<redacted>": a last guard on error messages.
std::string scrub_secrets(std::string text, const HttpHeaders& headers);

// Replaces in `text` every mention of the server `url` names — the URL
// itself, "host:port", curl's "host port N", the bare host — by
// `name`, and drops a leading "METHOD <url>: " (the transport's prefix): what
// a gateway's caller may read about an upstream whose address is internal.
std::string scrub_address(std::string text, std::string_view url, std::string_view name);

}  // namespace toolwire::transport
