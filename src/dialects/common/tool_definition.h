// tool_definition.h — what every request encoder checks in a tool definition
// before writing it: the name against the dialect's rule, and the input
// schema (a JSON object; its text parsed again unless the decoder already
// checked it).
#pragma once

#include <string_view>

#include "dialects/common/style.h"
#include "dialects/common/tool_schema.h"
#include "toolwire/dialects/tool_rules.h"
#include "toolwire/ir/request.h"

namespace toolwire::dialects {

// The schema a tool without one is sent with.
inline constexpr std::string_view kEmptyObjectSchema = R"({"type":"object","properties":{}})";

// The schema to write for `t` (kEmptyObjectSchema when it has none), or the
// error naming `name_path` or `schema_path`. `raw_verified`: EncodeOptions.
template <class S>
Result<std::string_view> checked_tool_schema(const ir::BasicToolDefinition<S>& t,
                                             std::string_view dialect, size_t max_name_length,
                                             bool raw_verified, const json::Path& name_path,
                                             const json::Path& schema_path) {
  if (!is_valid_tool_name(t.name, max_name_length)) [[unlikely]]
    return invalid_tool_name(dialect, t.name, name_path.str());
  const std::string_view schema = t.input_schema;
  if (schema.empty()) return kEmptyObjectSchema;
  if (schema.front() != '{')
    return json::invalid(schema_path, "tool input schema is not a JSON object");
  if (!raw_verified) TW_TRY(json::check_tool_schema_text(schema, schema_path));
  return schema;
}

}  // namespace toolwire::dialects
