#include "cli/offline_demo.h"

#include "toolwire/demo/demo.h"
#include "toolwire/tools/registry.h"

namespace toolwire::cli {

Result<std::vector<tools::ToolSpec>> demo_todo_tools(const std::string& data_dir) {
  std::string dir = data_dir.empty() ? demo::default_data_dir() : data_dir;
  auto store = demo::TodoStore::open(dir + "/todo.sqlite3");
  if (!store) return std::move(store).error();
  tools::Registry scratch;
  TW_TRY(demo::register_todo_tools(scratch, *store));
  std::vector<tools::ToolSpec> specs;
  for (const auto& tool : scratch.tools()) specs.push_back(tool->spec());
  return specs;
}

gateway::OfflineDemo offline_demo() {
  return {.script = std::string(demo::demo_script_json()), .todo_tools = demo_todo_tools};
}

}  // namespace toolwire::cli
