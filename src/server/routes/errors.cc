#include "server/routes/errors.h"

namespace toolwire::server::routes {

const codec::Codec& codec_for(Dialect d) {
  static const codec::Codec* openai = codec::find_codec("openai_chat");
  static const codec::Codec* anthropic = codec::find_codec("anthropic_messages");
  return d == Dialect::anthropic_messages ? *anthropic : *openai;
}

Dialect dialect_for(std::string_view path, std::string_view anthropic_version_header) {
  if (path.starts_with("/v1/messages") || !anthropic_version_header.empty())
    return Dialect::anthropic_messages;
  return Dialect::openai_chat;
}

void send_error(http::Exchange& ex, Dialect d, const Error& error, const http::Headers& headers) {
  codec::WireError w = codec_for(d).encode_error(error);
  ex.respond(w.http_status, "application/json", w.body, headers);
}

void send_error(http::Exchange& ex, Dialect d, int status, ErrorCode code, std::string message,
                std::string path, const http::Headers& headers) {
  Error e = make_error(code, std::move(message), std::move(path));
  e.http_status = status;
  send_error(ex, d, e, headers);
}

}  // namespace toolwire::server::routes
