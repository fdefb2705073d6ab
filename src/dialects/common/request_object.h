// request_object.h — the frame of every codec's output object: `{`, what the
// codec's body writes, `}`, in one buffer reserved up front (for a request,
// from its estimated size: request_size.h).
#pragma once

#include <string>
#include <string_view>
#include <utility>

#include "dialects/common/request_size.h"
#include "toolwire/core/json_writer.h"
#include "toolwire/core/result.h"

namespace toolwire::dialects {

// `{` + what `body(JsonWriter&)` writes (returning Status) + `}`.
template <class Body>
Result<std::string> write_json_object(size_t reserve, Body&& body) {
  std::string out;
  out.reserve(reserve);
  JsonWriter w(out);
  w.begin_object();
  TW_TRY(body(w));
  w.end_object();
  return out;
}

// A request's object: `body(JsonWriter&, bool same)`, `same` when the request
// was decoded from `dialect` (its extras are then written back as they came).
template <class S, class Body>
Result<std::string> write_request_object(const ir::BasicRequest<S>& req, std::string_view dialect,
                                         Body&& body) {
  const bool same = req.source_dialect == dialect;
  return write_json_object(estimate_request_json_size(req),
                           [&](JsonWriter& w) -> Status { return body(w, same); });
}

}  // namespace toolwire::dialects
