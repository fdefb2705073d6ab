// toolwire/gateway/offline_demo.h — what the offline demo lends the gateway.
//
// The demo (a to-do list in SQLite and the scripted model's script) is not
// part of the gateway library: the CLI, which links it, passes it in, so a
// program embedding the gateway links no SQLite. Without it, a `scripted`
// upstream needs `script: FILE` and `demo_todo: true` is an error.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "toolwire/core/result.h"
#include "toolwire/tools/tool.h"

namespace toolwire::gateway {

struct OfflineDemo {
  // A scripted upstream's rules when it names no script file; "" = none.
  std::string script;
  // The to-do tools (`demo_todo: true`) over the list kept in `data_dir`
  // ("" = the demo's default folder); empty: not available.
  std::function<Result<std::vector<tools::ToolSpec>>(const std::string& data_dir)> todo_tools;
};

}  // namespace toolwire::gateway
