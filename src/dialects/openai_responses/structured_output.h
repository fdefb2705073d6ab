// structured_output.h — Responses' `text` ↔ the IR's response format:
// text.format {"type":"text"}, {"type":"json_object"} or {"type":"json_schema",
// name, description, schema, strict}. Other members of `text` (verbosity) are
// extras "text.<member>", written back inside `text` for this dialect.
#pragma once

#include "dialects/common/borrowed_ir.h"
#include "toolwire/core/json_writer.h"
#include "toolwire/core/warnings.h"

namespace toolwire::dialects::openai_responses {

inline constexpr std::string_view kTextPrefix = "text.";

template <class S>
Status decode_text_config(json::element value, const json::Path& path, ir::BasicRequest<S>& req);
template <class S>
Status write_text_config(JsonWriter& w, const ir::BasicRequest<S>& req, bool same,
                         bool raw_verified);

}  // namespace toolwire::dialects::openai_responses
