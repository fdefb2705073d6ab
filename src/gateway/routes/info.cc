#include "gateway/routes/info.h"

#include "gateway/routes/errors.h"
#include "toolwire/core/json_writer.h"

namespace toolwire::gateway::routes {

// In the shape of the dialect the request's headers mark (its SDK's), else
// of the first dialect that writes a model list.
void handle_models(const RouteContext& ctx, http::Exchange& ex, const http::Request& req) {
  const Dialect* shape = nullptr;
  for (const Dialect& d : dialects::all_dialects()) {
    if (!d.ingress.write_models) continue;
    if (!shape) shape = &d;
    if (!d.ingress.marker_header.empty() && !req.header(d.ingress.marker_header).empty()) {
      shape = &d;
      break;
    }
  }
  auto names = ctx.router->model_names();
  std::string body;
  JsonWriter w(body);
  w.begin_object();
  if (shape) shape->ingress.write_models(w, names);
  w.end_object();
  ex.respond(200, "application/json", body);
}

}  // namespace toolwire::gateway::routes
