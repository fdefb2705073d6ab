// The model-call endpoints of every ingress dialect, matched from a path.
//
// OpenAI Chat, Anthropic Messages and OpenAI Responses name the model and the
// stream flag in the body. Gemini and Bedrock name the model in the path
// (`/v1beta/models/{model}:generateContent`, `/model/{modelId}/converse`,
// percent-encoded: the AWS SDK sends `amazon.nova-lite-v1%3A0`) and stream by
// calling another method (`:streamGenerateContent`, `/converse-stream`); for
// those the path wins over anything in the body.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "gateway/routes/errors.h"
#include "toolwire/core/result.h"

namespace toolwire::gateway::routes {

struct Ingress {
  Dialect dialect = Dialect::openai_chat;
  // The endpoint in logs and metrics, the model left out (a string literal).
  std::string_view route;
  std::string model;           // from the path, decoded; empty: the body's
  std::optional<bool> stream;  // from the path; nullopt: the body's
};

// The model-call endpoint `path` names, with `query` (after '?', may be
// empty). nullopt: not a model-call path. An error: the path names one but is
// unusable (an empty or badly encoded model, Gemini streaming without
// `alt=sse`), to answer in the dialect with the error's status.
std::optional<Result<Ingress>> match_model_call(std::string_view path, std::string_view query);

// %XX sequences decoded; an error for a truncated or non-hex one, or for an
// encoded NUL.
Result<std::string> percent_decode(std::string_view s);

// The value of `name` in a URL query (`a=1&alt=sse`), undecoded; nullopt if
// absent.
std::optional<std::string_view> query_param(std::string_view query, std::string_view name);

}  // namespace toolwire::gateway::routes
