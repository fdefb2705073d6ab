// request_object.h — the frame of every codec's output object: `{`, what the
// codec's body writes, `}`, in one buffer reserved up front (for a request,
// from its estimated size: request_size.h).
#pragma once

#include <string>
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

template <class S, class Body>
Result<std::string> write_request_object(const ir::BasicRequest<S>& req, Body&& body) {
  return write_json_object(estimate_request_json_size(req), std::forward<Body>(body));
}

}  // namespace toolwire::dialects
