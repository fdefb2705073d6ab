// toolwire/mcp/content.h — MCP content blocks to and from IR tool results.
//
// MCP → IR (a server's tools/call result, for the model):
//   text                  → TextPart
//   image                 → ImagePart {media_type, data}
//   audio                 → a TextPart naming it, plus UnknownPart{"mcp","audio"} (the IR has
//                           no audio; the bytes stay for an MCP passthrough)
//   resource (text)       → TextPart "resource <uri>:\n<text>"
//   resource (image blob) → ImagePart; other blobs as audio
//   resource_link         → TextPart "resource link: <name> <uri>"
//   structuredContent     → a TextPart of its JSON when `content` is empty; checked against
//                           the tool's outputSchema when one is given (a mismatch is an error)
//   isError               → ToolOutput::is_error
// IR → MCP (toolwire's tools served over MCP): TextPart → text, ImagePart with
// data → image (a URL image becomes a text link), UnknownPart of dialect "mcp"
// → its block as is, any other UnknownPart → text of its JSON.
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "toolwire/ir/parts.h"
#include "toolwire/mcp/client.h"
#include "toolwire/tools/schema.h"
#include "toolwire/tools/tool.h"

namespace toolwire::mcp {

tools::ToolOutput to_tool_output(const CallResult& r,
                                 const tools::CompiledSchema* output_schema = nullptr);

nlohmann::json to_mcp_content(const std::vector<ir::ResultContent>& content);

}  // namespace toolwire::mcp
