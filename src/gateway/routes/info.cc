#include "gateway/routes/info.h"

#include "toolwire/core/json_writer.h"

namespace toolwire::gateway::routes {

// OpenAI's SDK reads {"object":"list","data":[{id, object, created, owned_by}]};
// Anthropic's (which sends `anthropic-version`) reads
// {"data":[{type, id, display_name, created_at}], has_more, first_id, last_id}.
void handle_models(const RouteContext& ctx, http::Exchange& ex, const http::Request& req) {
  auto names = ctx.router->model_names();
  std::string body;
  JsonWriter w(body);
  w.begin_object();
  if (!req.header("anthropic-version").empty()) {
    w.key("data");
    w.begin_array();
    for (const auto& n : names) {
      w.begin_object();
      w.field("type", "model");
      w.field("id", n);
      w.field("display_name", n);
      w.field("created_at", "1970-01-01T00:00:00Z");
      w.end_object();
    }
    w.end_array();
    w.field("has_more", false);
    if (names.empty()) {
      w.field_null("first_id");
      w.field_null("last_id");
    } else {
      w.field("first_id", names.front());
      w.field("last_id", names.back());
    }
  } else {
    w.field("object", "list");
    w.key("data");
    w.begin_array();
    for (const auto& n : names) {
      w.begin_object();
      w.field("id", n);
      w.field("object", "model");
      w.field("created", int64_t{0});
      w.field("owned_by", "toolwire");
      w.end_object();
    }
    w.end_array();
  }
  w.end_object();
  ex.respond(200, "application/json", body);
}

}  // namespace toolwire::gateway::routes
