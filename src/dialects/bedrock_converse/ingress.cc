// How a gateway serves Bedrock Converse: POST /model/{modelId}/converse and
// /converse-stream, the model id percent-encoded in one segment (the AWS SDKs
// send `amazon.nova-lite-v1%3A0`), the key as a SigV4 access key id.
#include "dialects/bedrock_converse/entry.h"

namespace toolwire::dialects::bedrock_converse {

std::optional<Result<RouteMatch>> match_model_call(std::string_view path, std::string_view) {
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
    return Result<RouteMatch>(bad_path("Bedrock " + std::string(op) +
                                       ": the model id spans several path segments (encode '/' "
                                       "as %2F)"));
  auto model = path_model(raw, "Bedrock " + std::string(op));
  if (!model) return Result<RouteMatch>(model.error());
  return Result<RouteMatch>(
      RouteMatch{stream ? "/model/{modelId}/converse-stream" : "/model/{modelId}/converse",
                 std::move(*model), stream});
}

bool owns_path(std::string_view path) { return path.starts_with("/model/"); }

// AWS4-HMAC-SHA256 Credential=AKID/20250101/us-east-1/bedrock/aws4_request, ...
std::string_view sigv4_access_key(std::string_view authorization) {
  constexpr std::string_view kSigV4 = "AWS4-HMAC-SHA256 ";
  if (!authorization.starts_with(kSigV4)) return {};
  constexpr std::string_view kCredential = "Credential=";
  auto at = authorization.find(kCredential);
  if (at == std::string_view::npos) return {};
  std::string_view id = authorization.substr(at + kCredential.size());
  auto end = id.find_first_of("/, ");
  if (end == std::string_view::npos || id[end] != '/') return {};
  return id.substr(0, end);
}

}  // namespace toolwire::dialects::bedrock_converse
