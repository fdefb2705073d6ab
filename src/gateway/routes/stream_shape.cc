#include "gateway/routes/stream_shape.h"

#include "toolwire/dialects/dialect.h"

namespace toolwire::gateway::routes {

StreamShape stream_shape(const dialects::Codec& codec) {
  StreamShape s;
  if (const dialects::Dialect* d = dialects::dialect_of(codec)) {
    s.media_type = d->stream_media_type;
    s.keepalive = d->ingress.stream_keepalive;
  }
  s.sse_comments = s.media_type == "text/event-stream";
  return s;
}

}  // namespace toolwire::gateway::routes
