#include "gateway/routes/ingress.h"

namespace toolwire::gateway::routes {
namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

Error bad_path(std::string message) {
  Error e = make_error(ErrorCode::invalid_argument, std::move(message));
  e.http_status = 400;
  return e;
}

// The model segment of a path, decoded and checked.
Result<std::string> model_segment(std::string_view raw, std::string_view what) {
  auto model = percent_decode(raw);
  if (!model) return bad_path(std::string(what) + ": " + model.error().message);
  if (model->empty()) return bad_path(std::string(what) + ": the model is missing from the path");
  return model;
}

// /v1beta/models/{model}:generateContent | :streamGenerateContent (also
// under /v1/, the API's stable version).
std::optional<Result<Ingress>> gemini(std::string_view path, std::string_view query) {
  std::string_view rest;
  for (std::string_view prefix : {"/v1beta/models/", "/v1/models/"})
    if (path.starts_with(prefix)) rest = path.substr(prefix.size());
  auto colon = rest.rfind(':');
  if (rest.empty() || colon == std::string_view::npos) return std::nullopt;
  std::string_view method = rest.substr(colon + 1);
  bool stream = method == "streamGenerateContent";
  if (!stream && method != "generateContent") return std::nullopt;
  auto model = model_segment(rest.substr(0, colon), "Gemini " + std::string(method));
  if (!model) return Result<Ingress>(model.error());
  // Without alt=sse the API streams one JSON array; this gateway streams
  // Server-Sent Events only, which every Gemini SDK asks for.
  if (stream && query_param(query, "alt") != "sse")
    return Result<Ingress>(
        bad_path("streamGenerateContent needs ?alt=sse: this gateway streams Gemini answers as "
                 "Server-Sent Events only (the JSON-array stream is not supported)"));
  return Result<Ingress>(Ingress{Dialect::gemini,
                                 stream ? "/v1beta/models/{model}:streamGenerateContent"
                                        : "/v1beta/models/{model}:generateContent",
                                 std::move(*model), stream});
}

// /model/{modelId}/converse | /converse-stream
std::optional<Result<Ingress>> bedrock(std::string_view path) {
  if (!path.starts_with("/model/")) return std::nullopt;
  std::string_view rest = path.substr(7);
  auto slash = rest.rfind('/');
  if (slash == std::string_view::npos) return std::nullopt;
  std::string_view op = rest.substr(slash + 1);
  bool stream = op == "converse-stream";
  if (!stream && op != "converse") return std::nullopt;
  std::string_view raw = rest.substr(0, slash);
  // One segment: an ARN's '/' comes encoded (%2F), as the AWS SDKs send it.
  if (raw.find('/') != std::string_view::npos)
    return Result<Ingress>(bad_path("Bedrock " + std::string(op) +
                                    ": the model id spans several path segments (encode '/' "
                                    "as %2F)"));
  auto model = model_segment(raw, "Bedrock " + std::string(op));
  if (!model) return Result<Ingress>(model.error());
  return Result<Ingress>(
      Ingress{Dialect::bedrock_converse,
              stream ? "/model/{modelId}/converse-stream" : "/model/{modelId}/converse",
              std::move(*model), stream});
}

}  // namespace

Result<std::string> percent_decode(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out += s[i];
      continue;
    }
    int hi = i + 2 < s.size() ? hex_value(s[i + 1]) : -1;
    int lo = i + 2 < s.size() ? hex_value(s[i + 2]) : -1;
    if (hi < 0 || lo < 0)
      return make_error(ErrorCode::invalid_argument,
                        "bad percent-encoding at offset " + std::to_string(i));
    char c = static_cast<char>(hi * 16 + lo);
    if (c == '\0')
      return make_error(ErrorCode::invalid_argument, "an encoded NUL is not allowed in a model id");
    out += c;
    i += 2;
  }
  return out;
}

std::optional<std::string_view> query_param(std::string_view query, std::string_view name) {
  while (!query.empty()) {
    auto amp = query.find('&');
    std::string_view item = query.substr(0, amp);
    auto eq = item.find('=');
    if (item.substr(0, eq) == name)
      return eq == std::string_view::npos ? std::string_view() : item.substr(eq + 1);
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
  return std::nullopt;
}

std::optional<Result<Ingress>> match_model_call(std::string_view path, std::string_view query) {
  if (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  if (path == "/v1/chat/completions" || path == "/chat/completions")
    return Result<Ingress>(Ingress{Dialect::openai_chat, "/v1/chat/completions", {}, {}});
  if (path == "/v1/messages")
    return Result<Ingress>(Ingress{Dialect::anthropic_messages, "/v1/messages", {}, {}});
  if (path == "/v1/responses" || path == "/responses")
    return Result<Ingress>(Ingress{Dialect::openai_responses, "/v1/responses", {}, {}});
  if (auto g = gemini(path, query)) return g;
  return bedrock(path);
}

}  // namespace toolwire::gateway::routes
