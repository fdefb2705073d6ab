#include "gateway/routes/errors.h"

namespace toolwire::gateway::routes {

const dialects::Codec& codec_for(const Dialect& d) {
  if (d.has_codec()) return d.codec();
  return dialects::all_dialects().front().codec();
}

const Dialect& dialect_of(const http::Request& req) {
  return dialects::dialect_for_request(req.path(),
                                       [&](std::string_view name) { return req.header(name); });
}

const Dialect& dialect_of_path(std::string_view path) {
  return dialects::dialect_for_request(path, [](std::string_view) { return std::string_view(); });
}

void send_error(http::Exchange& ex, const Dialect& d, const Error& error,
                const http::Headers& headers) {
  dialects::WireError w = codec_for(d).encode_error(error);
  http::Headers all = headers;
  for (auto& h : w.headers) all.push_back(std::move(h));
  ex.respond(w.http_status, "application/json", w.body, all);
}

void send_error(http::Exchange& ex, const Dialect& d, int status, ErrorCode code,
                std::string message, std::string path, const http::Headers& headers) {
  Error e = make_error(code, std::move(message), std::move(path));
  e.http_status = status;
  send_error(ex, d, e, headers);
}

}  // namespace toolwire::gateway::routes
