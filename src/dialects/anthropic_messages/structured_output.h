// structured_output.h — Anthropic's `output_config.format`
// ({"type":"json_schema","schema":{...}}) ↔ the IR's response format. The
// beta spelling `output_format` is read too; both are written as
// `output_config`. Other members of `output_config` (effort) are extras
// "output_config.<member>", written back inside it for this dialect.
// Anthropic has no JSON mode: a json_object format goes out as a forced tool
// (dialects/common/forced_output.h).
#pragma once

#include "dialects/common/borrowed_ir.h"
#include "toolwire/core/json_writer.h"
#include "toolwire/core/warnings.h"

namespace toolwire::dialects::anthropic_messages {

inline constexpr std::string_view kOutputConfigPrefix = "output_config.";

// `key` is "output_config" or "output_format".
template <class S>
Status decode_output_config(std::string_view key, json::element value, const json::Path& path,
                            ir::BasicRequest<S>& req);
template <class S>
Status write_output_config(JsonWriter& w, const ir::BasicRequest<S>& req, bool same,
                           bool raw_verified, Warnings& warnings);

}  // namespace toolwire::dialects::anthropic_messages
