// structured_output.h — Converse's `outputConfig.textFormat`
// ({"type":"json_schema","structure":{"jsonSchema":{"schema":"<JSON text>",
// "name","description"}}}) ↔ the IR's response format. The schema travels as
// a string. Other members of outputConfig are extras "outputConfig.<member>".
// Converse has no JSON mode: a json_object format goes out as a forced tool
// (dialects/common/forced_output.h).
#pragma once

#include "dialects/common/borrowed_ir.h"
#include "toolwire/core/json_writer.h"
#include "toolwire/core/warnings.h"

namespace toolwire::dialects::bedrock_converse {

inline constexpr std::string_view kOutputConfigPrefix = "outputConfig.";

template <class S>
Status decode_output_config(json::element value, const json::Path& path, ir::BasicRequest<S>& req);
template <class S>
Status write_output_config(JsonWriter& w, const ir::BasicRequest<S>& req, bool same,
                           bool raw_verified, Warnings& warnings);

}  // namespace toolwire::dialects::bedrock_converse
