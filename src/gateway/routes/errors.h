// Errors in the caller's dialect: the HTTP status and the error JSON its SDK
// parses, written by the dialect's codec. A request that failed before its
// route was known gets the dialect its path or headers imply.
#pragma once

#include <string_view>

#include "gateway/http/exchange.h"
#include "toolwire/core/result.h"
#include "toolwire/dialects/codec.h"
#include "toolwire/dialects/dialect.h"

namespace toolwire::gateway::routes {

using dialects::Dialect;

// The dialect's codec; the first dialect's while it has none registered.
const dialects::Codec& codec_for(const Dialect& d);
// The dialect `req` speaks before its route is known (dialects::dialect_for_request).
const Dialect& dialect_of(const http::Request& req);
// The same from a path alone (errors written before the headers are read).
const Dialect& dialect_of_path(std::string_view path);

// Answers `error` in `d` (status from error.http_status or its code).
void send_error(http::Exchange& ex, const Dialect& d, const Error& error,
                const http::Headers& headers = {});
// Shortcut: an error with an exact status.
void send_error(http::Exchange& ex, const Dialect& d, int status, ErrorCode code,
                std::string message, std::string path = {}, const http::Headers& headers = {});

}  // namespace toolwire::gateway::routes
