// How a gateway serves OpenAI Responses: POST /v1/responses (also without
// /v1); `previous_response_id`, `store` and `item_reference` items come from
// the gateway's store.
#include "dialects/openai_responses/entry.h"

namespace toolwire::dialects::openai_responses {

std::optional<Result<RouteMatch>> match_model_call(std::string_view path, std::string_view) {
  if (path == "/v1/responses" || path == "/responses")
    return Result<RouteMatch>(RouteMatch{"/v1/responses", {}, {}});
  return std::nullopt;
}

bool owns_path(std::string_view path) { return path.starts_with("/v1/responses"); }

WireError store_error(std::string_view message, std::string_view code, std::string_view param) {
  WireError out;
  out.http_status = 400;
  JsonWriter w(out.body);
  w.begin_object();
  w.key("error");
  w.begin_object();
  w.field("message", message);
  w.field("type", "invalid_request_error");
  w.field("param", param);
  w.field("code", code);
  w.end_object();
  w.end_object();
  return out;
}

}  // namespace toolwire::dialects::openai_responses
