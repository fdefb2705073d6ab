// response_object.h — the opening every response decoder shares: parse,
// require an object, mark the dialect. (The encoders' frame: request_object.h.)
#pragma once

#include <simdjson.h>

#include <string>
#include <string_view>

#include "dialects/common/json_in.h"
#include "dialects/common/style.h"
#include "toolwire/core/result.h"
#include "toolwire/ir/response.h"

namespace toolwire::dialects {

// The body's top-level object, parsed with one parser per thread (the
// response IR copies what it keeps); `resp.source_dialect` is set.
inline Result<json::object> open_response(std::string_view body, std::string_view dialect,
                                          ir::Response& resp) {
  thread_local simdjson::dom::parser parser;
  TW_ASSIGN(json::element root, json::parse(parser, body));
  TW_ASSIGN(json::object obj, json::as_object(root, json::Path()));
  resp.source_dialect.assign(dialect);
  return obj;
}

}  // namespace toolwire::dialects
