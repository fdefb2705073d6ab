// How a gateway serves OpenAI Chat Completions: POST /v1/chat/completions
// (also without /v1, as OpenAI-compatible clients configured with the bare
// server root send it), and the model list of `GET /v1/models`.
#include "dialects/openai_chat/entry.h"

namespace toolwire::dialects::openai_chat {

std::optional<Result<RouteMatch>> match_model_call(std::string_view path, std::string_view) {
  if (path == "/v1/chat/completions" || path == "/chat/completions")
    return Result<RouteMatch>(RouteMatch{"/v1/chat/completions", {}, {}});
  return std::nullopt;
}

// {"object":"list","data":[{id, object, created, owned_by}]}
void write_models(JsonWriter& w, std::span<const std::string> ids) {
  w.field("object", "list");
  w.key("data");
  w.begin_array();
  for (const auto& id : ids) {
    w.begin_object();
    w.field("id", id);
    w.field("object", "model");
    w.field("created", int64_t{0});
    w.field("owned_by", "toolwire");
    w.end_object();
  }
  w.end_array();
}

}  // namespace toolwire::dialects::openai_chat
