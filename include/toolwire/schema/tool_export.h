// toolwire/schema/tool_export.h — one tool definition as a dialect's
// tool-list entry, as compact JSON text. These are the `export_tool` hooks of
// the dialect list (toolwire/dialects/dialect.h); the text form keeps nlohmann
// out of the headers of everything that reads that list.
//
// - openai:    {"type":"function","function":{"name","description"?,"parameters","strict"?}};
//              with strict (options or the definition's flag) the schema is
//              converted for structured outputs (json_schema.h).
// - openai_responses: {"type":"function","name","description"?,"parameters","strict"}
//              (flat; strict written always: Responses defaults it to true).
// - anthropic: {"name","description"?,"input_schema"}; schema unchanged.
// - gemini:    a functionDeclarations entry {"name","description"?,"parameters"};
//              schema reduced to Gemini's OpenAPI subset.
// - bedrock:   a toolConfig.tools entry {"toolSpec":{"name","description"?,
//              "inputSchema":{"json"}}}; schema unchanged.
// Property order is kept as the tool author wrote it (models read it).
#pragma once

#include <optional>
#include <string>

#include "toolwire/core/result.h"
#include "toolwire/ir/tool.h"

namespace toolwire::schema {

struct ToolExportOptions {
  std::optional<bool> strict;  // OpenAI only; unset: the definition's own flag
};

Result<std::string> openai_tool(const ir::ToolDefinition& def, const ToolExportOptions& opts);
Result<std::string> openai_responses_tool(const ir::ToolDefinition& def,
                                          const ToolExportOptions& opts);
Result<std::string> anthropic_tool(const ir::ToolDefinition& def, const ToolExportOptions& opts);
Result<std::string> gemini_tool(const ir::ToolDefinition& def, const ToolExportOptions& opts);
Result<std::string> bedrock_tool(const ir::ToolDefinition& def, const ToolExportOptions& opts);

}  // namespace toolwire::schema
