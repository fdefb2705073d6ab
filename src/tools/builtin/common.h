// Private helpers shared by the built-in tools: argument access, the handler
// wrapper (Error → is_error output), text checks, and one factory per tool.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "toolwire/tools/builtin.h"

namespace toolwire::tools::builtin {

using Ctx = std::shared_ptr<const BuiltinContext>;
using Impl = Result<ToolOutput> (*)(const nlohmann::json& args, const BuiltinContext& bc,
                                    ToolContext& ctx);

// A SyncHandler running `fn`; an Error becomes ToolOutput::error(message).
SyncHandler wrap(Ctx bc, Impl fn);

// A built-in tool: its name, what the model reads about it, its arguments'
// JSON Schema, and `fn` behind wrap().
ToolSpec spec(std::string name, std::string description, std::string input_schema, Ctx bc, Impl fn);

// `lines`, one per line, as long as they fit in `max_bytes`; when some did not
// (or `truncated`), a last line "[<what> truncated after N <unit>]".
std::string bounded_lines(std::span<const std::string> lines, size_t max_bytes, bool truncated,
                          std::string_view what, std::string_view unit);

// Typed argument access with defaults; errors name "$.key".
Result<std::string> arg_string(const nlohmann::json& a, const char* key, const char* def = nullptr);
Result<std::int64_t> arg_int(const nlohmann::json& a, const char* key, std::int64_t def,
                             std::int64_t min);
Result<bool> arg_bool(const nlohmann::json& a, const char* key, bool def);

bool valid_utf8(std::string_view s);
// Binary: a NUL byte in the first 8 KiB, or not UTF-8.
bool looks_binary(std::string_view s);
// Cuts at `max` bytes without splitting a UTF-8 sequence.
std::string_view utf8_prefix(std::string_view s, size_t max);

// The remaining time until `ctx.deadline`, bounded by `cap`.
std::chrono::milliseconds budget(const ToolContext& ctx, std::chrono::milliseconds cap);

ToolSpec read_spec(Ctx bc);
ToolSpec write_spec(Ctx bc);
ToolSpec edit_spec(Ctx bc);
ToolSpec list_spec(Ctx bc);
ToolSpec glob_spec(Ctx bc);
ToolSpec grep_spec(Ctx bc);
ToolSpec shell_spec(Ctx bc);
ToolSpec fetch_spec(Ctx bc);

}  // namespace toolwire::tools::builtin
