// toolwire/dialects/dialect.h — one wire dialect, registered once.
//
// Everything toolwire knows about a dialect beyond its codec is data in its
// entry of all_dialects() (src/dialects/dialects.cc): the names the CLI and
// profiles accept, where its endpoint lives, how a request is authenticated,
// how its stream errors map to ErrorCodes, what a stream request must ask for,
// and how a tool definition is exported. The CLI lists, the HTTP provider and
// the cross-dialect tests read this list; adding a dialect is its folder plus
// one entry here.
//
//   const dialects::Dialect* d = dialects::find_dialect("anthropic");  // name or alias
//   const dialects::Codec& c = *d->codec();
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "toolwire/core/result.h"
#include "toolwire/dialects/codec.h"
#include "toolwire/ir/tool.h"
#include "toolwire/schema/tool_export.h"

namespace toolwire::dialects {

// The built-in request codec over the borrowed IR (private:
// src/dialects/common/borrowed_codec.h); translate_request uses it.
struct BorrowedCodec;

// Headers an auth hook adds to one outgoing request.
using HeaderList = std::vector<std::pair<std::string, std::string>>;

// What an auth hook may read to authenticate one outgoing request. The URL is
// the final one (template expanded); `key` is a secret and is never logged.
struct AuthRequest {
  std::string_view method;
  std::string_view url;
  std::string_view body;
  const HeaderList* headers = nullptr;  // the request's other headers
  std::string_view header;              // the profile's auth header ("authorization")
  std::string_view prefix;              // and its value prefix ("Bearer ")
  std::string_view key;
};
using AuthHook = void (*)(const AuthRequest& request, HeaderList& out);

// `header: prefix + key`; nothing when the header or the key is empty.
void header_auth(const AuthRequest& request, HeaderList& out);

// An `error` event's type in a stream of the dialect → ErrorCode.
using StreamErrorCode = ErrorCode (*)(std::string_view type);

// A tool definition as the dialect's tool-list entry (JSON text).
using ToolExporter = Result<std::string> (*)(const ir::ToolDefinition& def,
                                             const schema::ToolExportOptions& opts);

struct Dialect {
  std::string_view name;   // the codec's name: "openai_chat"
  std::string_view alias;  // the short name: "openai"; empty: none
  // The codec; nullptr while the dialect only exports tool schemas.
  const Codec& (*codec)() = nullptr;
  // The request codec over the borrowed IR (translate_request's fast path);
  // nullptr: translate_request goes through the owning IR.
  const BorrowedCodec* borrowed = nullptr;
  // The endpoint's path after the base URL; `{model}` stands for the model
  // (url_for). `stream_path` is the one for a streaming request (Gemini's
  // ":streamGenerateContent?alt=sse"); empty: `path`. A profile's own path
  // replaces both.
  std::string_view path;
  std::string_view stream_path;
  // The media type of a streamed answer (the request's `accept`).
  std::string_view stream_media_type = "text/event-stream";
  AuthHook auth = &header_auth;
  StreamErrorCode stream_error_code = nullptr;
  // Its own rate-limit response headers ("anthropic-ratelimit-"), reported
  // beside x-ratelimit-* and retry-after; empty: none.
  std::string_view rate_limit_prefix;
  // A top-level member a streaming request needs to report usage
  // ({"stream_options":{"include_usage":true}} for OpenAI); empty: none.
  std::string_view stream_usage_key;
  std::string_view stream_usage_value;  // its JSON value
  ToolExporter export_tool = nullptr;
  // Tool names its API accepts: ^[a-zA-Z0-9_-]{1,max}$ (tool_rules.h); 0:
  // no known rule. And where a name sits in a tools[] entry, for error paths.
  size_t max_tool_name_length = 0;
  std::string_view tool_name_path = ".name";

  bool has_codec() const { return codec != nullptr; }
};

// Every dialect, codecs first, in a fixed order.
std::span<const Dialect> all_dialects();
// By name or alias; nullptr if unknown.
const Dialect* find_dialect(std::string_view name);
// The entry whose codec is `codec`; nullptr for a codec from outside.
const Dialect* dialect_of(const Codec& codec);
// "openai | anthropic": the short names of the dialects `pred` accepts.
std::string dialect_names(bool (*pred)(const Dialect&), std::string_view separator = " | ");

// `base` (trailing slashes dropped) + `path`, with every `{model}` replaced
// by the model id, percent-encoded as a path segment (Bedrock's
// "amazon.nova-lite-v1:0" → "amazon.nova-lite-v1%3A0").
std::string url_for(std::string_view base, std::string_view path, std::string_view model);

}  // namespace toolwire::dialects
