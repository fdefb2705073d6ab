// How a gateway serves Anthropic Messages: POST /v1/messages (also without
// /v1), its model list, and the `thread` its SDK's tool runner may send.
#include "dialects/anthropic_messages/entry.h"

namespace toolwire::dialects::anthropic_messages {

// Also without /v1: clients whose base URL carries the /v1 themselves
// (@ai-sdk/anthropic) reach /messages when given the gateway's bare address.
std::optional<Result<RouteMatch>> match_model_call(std::string_view path, std::string_view) {
  if (path == "/v1/messages" || path == "/messages")
    return Result<RouteMatch>(RouteMatch{"/v1/messages", {}, {}});
  return std::nullopt;
}

bool owns_path(std::string_view path) {
  return path.starts_with("/v1/messages") || path.starts_with("/messages");
}

// {"data":[{type, id, display_name, created_at}], has_more, first_id, last_id}
void write_models(JsonWriter& w, std::span<const std::string> ids) {
  w.key("data");
  w.begin_array();
  for (const auto& id : ids) {
    w.begin_object();
    w.field("type", "model");
    w.field("id", id);
    w.field("display_name", id);
    w.field("created_at", "1970-01-01T00:00:00Z");
    w.end_object();
  }
  w.end_array();
  w.field("has_more", false);
  if (ids.empty()) {
    w.field_null("first_id");
    w.field_null("last_id");
  } else {
    w.field("first_id", ids.front());
    w.field("last_id", ids.back());
  }
}

// `thread` asks for history kept by the server; this error code tells the
// SDK's tool runner to resend the whole history instead.
std::optional<WireError> refuse(const ir::Request& request) {
  for (const auto& x : request.extra)
    if (x.key == "thread")
      return WireError{
          400,
          R"({"type":"error","error":{"type":"invalid_request_error","message":"this gateway keeps )"
          R"(no server-side threads: send the full history instead of `thread`","details":)"
          R"({"error_code":"thread_unsupported_request","unsupported":["thread"]}}})",
          {}};
  return std::nullopt;
}

}  // namespace toolwire::dialects::anthropic_messages
