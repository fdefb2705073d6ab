// structured_output.h — Chat Completions' `response_format` ↔ the IR's
// response format: {"type":"text"}, {"type":"json_object"} or
// {"type":"json_schema","json_schema":{name, description, schema, strict}}.
#pragma once

#include "dialects/common/borrowed_ir.h"
#include "toolwire/core/json_writer.h"
#include "toolwire/core/warnings.h"

namespace toolwire::dialects::openai_chat {

// A type this dialect does not know is kept raw (extra "response_format").
template <class S>
Status decode_response_format(json::element value, const json::Path& path,
                              ir::BasicRequest<S>& req);
template <class S>
Status write_response_format(JsonWriter& w, const ir::BasicRequest<S>& req, bool raw_verified);

}  // namespace toolwire::dialects::openai_chat
