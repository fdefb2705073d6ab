// The offline demo (toolwire_demo: a to-do list in SQLite and the scripted
// model's script) as the CLI hands it to `chat`, `serve` and `mcp serve`.
#pragma once

#include <string>
#include <vector>

#include "toolwire/core/result.h"
#include "toolwire/gateway/offline_demo.h"
#include "toolwire/tools/tool.h"

namespace toolwire::cli {

// The to-do tools over the list in `data_dir` ("" = the demo's default folder).
Result<std::vector<tools::ToolSpec>> demo_todo_tools(const std::string& data_dir);

// The demo's script and to-do tools, for the gateway's builder.
gateway::OfflineDemo offline_demo();

}  // namespace toolwire::cli
