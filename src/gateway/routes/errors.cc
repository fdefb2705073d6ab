#include "gateway/routes/errors.h"

#include "toolwire/dialects/dialect.h"

namespace toolwire::gateway::routes {

std::string_view name_of(Dialect d) {
  switch (d) {
    case Dialect::openai_chat:
      return "openai_chat";
    case Dialect::anthropic_messages:
      return "anthropic_messages";
    case Dialect::openai_responses:
      return "openai_responses";
    case Dialect::gemini:
      return "gemini";
    case Dialect::bedrock_converse:
      return "bedrock_converse";
  }
  return "openai_chat";
}

const dialects::Codec& codec_for(Dialect d) {
  const dialects::Dialect* entry = dialects::find_dialect(name_of(d));
  if (entry && entry->has_codec()) return entry->codec();
  return *dialects::find_codec("openai_chat");
}

Dialect dialect_for(std::string_view path, std::string_view anthropic_version_header) {
  if (path.starts_with("/v1/messages") || !anthropic_version_header.empty())
    return Dialect::anthropic_messages;
  if (path.starts_with("/v1/responses")) return Dialect::openai_responses;
  if (path.starts_with("/v1beta/") || path.find(":generateContent") != path.npos ||
      path.find(":streamGenerateContent") != path.npos)
    return Dialect::gemini;
  if (path.starts_with("/model/")) return Dialect::bedrock_converse;
  return Dialect::openai_chat;
}

void send_error(http::Exchange& ex, Dialect d, const Error& error, const http::Headers& headers) {
  dialects::WireError w = codec_for(d).encode_error(error);
  http::Headers all = headers;
  for (auto& h : w.headers) all.push_back(std::move(h));
  ex.respond(w.http_status, "application/json", w.body, all);
}

void send_error(http::Exchange& ex, Dialect d, int status, ErrorCode code, std::string message,
                std::string path, const http::Headers& headers) {
  Error e = make_error(code, std::move(message), std::move(path));
  e.http_status = status;
  send_error(ex, d, e, headers);
}

}  // namespace toolwire::gateway::routes
