// How a gateway serves Gemini: POST /v1beta/models/{model}:generateContent
// and :streamGenerateContent (also under /v1/, the API's stable version). The
// model is in the path, and so is the choice to stream: it wins over the body.
#include "dialects/gemini/entry.h"

namespace toolwire::dialects::gemini {

std::optional<Result<RouteMatch>> match_model_call(std::string_view path, std::string_view query) {
  std::string_view rest;
  for (std::string_view prefix : {"/v1beta/models/", "/v1/models/"})
    if (path.starts_with(prefix)) rest = path.substr(prefix.size());
  auto colon = rest.rfind(':');
  if (rest.empty() || colon == std::string_view::npos) return std::nullopt;
  std::string_view method = rest.substr(colon + 1);
  bool stream = method == "streamGenerateContent";
  if (!stream && method != "generateContent") return std::nullopt;
  auto model = path_model(rest.substr(0, colon), "Gemini " + std::string(method));
  if (!model) return Result<RouteMatch>(model.error());
  // Without alt=sse the API streams one JSON array; a gateway streams
  // Server-Sent Events only, which every Gemini SDK asks for.
  if (stream && query_param(query, "alt") != "sse")
    return Result<RouteMatch>(
        bad_path("streamGenerateContent needs ?alt=sse: this gateway streams Gemini answers as "
                 "Server-Sent Events only (the JSON-array stream is not supported)"));
  return Result<RouteMatch>(RouteMatch{stream ? "/v1beta/models/{model}:streamGenerateContent"
                                              : "/v1beta/models/{model}:generateContent",
                                       std::move(*model), stream});
}

bool owns_path(std::string_view path) {
  return path.starts_with("/v1beta/") || path.find(":generateContent") != path.npos ||
         path.find(":streamGenerateContent") != path.npos;
}

}  // namespace toolwire::dialects::gemini
