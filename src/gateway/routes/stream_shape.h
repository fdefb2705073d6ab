// What a caller's stream looks like besides its events: the media type, the
// keep-alive written while nothing else is (server tools running), and
// whether SSE comment lines may carry the opt-in tool activity. Derived from
// the entry of the dialect whose codec encodes the stream.
#pragma once

#include <string_view>

#include "toolwire/dialects/codec.h"

namespace toolwire::gateway::routes {

struct StreamShape {
  std::string_view media_type = "text/event-stream";
  // The dialect's own (Ingress::stream_keepalive); empty: silent.
  std::string_view keepalive;
  bool sse_comments = true;
};

StreamShape stream_shape(const dialects::Codec& codec);

}  // namespace toolwire::gateway::routes
