// What a caller's stream looks like besides its events: the media type, the
// keep-alive written while nothing else is (server tools running), and
// whether SSE comment lines may carry the opt-in tool activity. Derived from
// the codec that encodes the stream (a dialect without its own codec yet
// streams as OpenAI Chat, and gets OpenAI's shape).
#pragma once

#include <string_view>

#include "toolwire/dialects/codec.h"

namespace toolwire::gateway::routes {

struct StreamShape {
  std::string_view media_type = "text/event-stream";
  // Anthropic: a `ping` event; other SSE dialects: a comment line, which
  // every SSE parser skips; Bedrock's binary event stream: none (an unknown
  // event would reach the AWS SDK's caller), so its stream stays silent.
  std::string_view keepalive;
  bool sse_comments = true;
};

StreamShape stream_shape(const dialects::Codec& codec);

}  // namespace toolwire::gateway::routes
