// The to-do tools of the offline demo, and the script that drives them.
#include <string>

#include "toolwire/demo/demo.h"

namespace toolwire::demo {
namespace {

std::string format_list(const std::vector<Todo>& items) {
  if (items.empty()) return "The to-do list is empty.";
  std::string out;
  for (const auto& t : items) {
    if (!out.empty()) out += "\n";
    out += "#" + std::to_string(t.id) + (t.done ? " [x] " : " [ ] ") + t.text;
  }
  return out;
}

}  // namespace

Status register_todo_tools(tools::Registry& registry, std::shared_ptr<TodoStore> store) {
  tools::ToolSpec add;
  add.name = "add_todo";
  add.description = "Add an item to the user's to-do list. Returns its id.";
  add.input_schema = R"json({"type":"object","properties":{
      "text":{"type":"string","minLength":1,"maxLength":500,"description":"What to do"}},
      "required":["text"],"additionalProperties":false})json";
  add.handler = tools::SyncHandler([store](const nlohmann::json& args, tools::ToolContext&) {
    std::string text = args["text"].get<std::string>();
    auto id = store->add(text);
    if (!id) return tools::ToolOutput::error(id.error().message);
    return tools::ToolOutput::text("Added #" + std::to_string(*id) + ": " + text);
  });
  TW_TRY(registry.add(std::move(add)));

  tools::ToolSpec list;
  list.name = "list_todos";
  list.description = "List the user's to-do items (open ones, or all with include_done).";
  list.input_schema = R"json({"type":"object","properties":{
      "include_done":{"type":"boolean","description":"Also list completed items (default false)"}},
      "additionalProperties":false})json";
  list.handler = tools::SyncHandler([store](const nlohmann::json& args, tools::ToolContext&) {
    bool all = args.contains("include_done") && args["include_done"].get<bool>();
    auto items = store->list(all);
    if (!items) return tools::ToolOutput::error(items.error().message);
    return tools::ToolOutput::text(format_list(*items));
  });
  TW_TRY(registry.add(std::move(list)));

  tools::ToolSpec done;
  done.name = "complete_todo";
  done.description = "Mark a to-do item as done, by its id.";
  done.input_schema = R"json({"type":"object","properties":{
      "id":{"type":"integer","minimum":1,"description":"The item's id, as list_todos shows it"}},
      "required":["id"],"additionalProperties":false})json";
  done.handler = tools::SyncHandler([store](const nlohmann::json& args, tools::ToolContext&) {
    auto t = store->complete(args["id"].get<int64_t>());
    if (!t) return tools::ToolOutput::error(t.error().message);
    return tools::ToolOutput::text("Completed #" + std::to_string(t->id) + ": " + t->text);
  });
  return registry.add(std::move(done));
}

// Rules are tried in order; the first that matches answers. A to-do request
// takes two tool rounds (change, then list) before the final text.
std::string_view demo_script_json() {
  return R"json({
  "rules": [
    {"user_pattern": "\\badd\\s+[\"']([^\"']+)[\"']\\s+to\\b",
     "calls": [{"name": "add_todo", "arguments": {"text": "$1"}}]},
    {"user_pattern": "\\badd\\s+(.+?)\\s+to\\s+(my\\s+)?(the\\s+)?(to-?do|todo|task)",
     "calls": [{"name": "add_todo", "arguments": {"text": "$1"}}]},
    {"after_tool": "add_todo", "reply": "{{result}}. ",
     "calls": [{"name": "list_todos", "arguments": {}}]},
    {"user_pattern": "\\b(complete|finish|done with|check off|tick off|mark)\\s+(#|number\\s+|item\\s+|to-?do\\s+)?(\\d+)",
     "calls": [{"name": "complete_todo", "arguments": {"id": "$3"}}]},
    {"after_tool": "complete_todo", "reply": "{{result}}. ",
     "calls": [{"name": "list_todos", "arguments": {}}]},
    {"user_pattern": "(to-?dos?|to-?do list|todo list|tasks)\\b",
     "calls": [{"name": "list_todos", "arguments": {}}]},
    {"after_tool": "list_todos", "reply": "Your to-do list:\n{{result}}"},
    {"user_pattern": "\\b(read|show|open|cat|print)\\s+(me\\s+)?(the\\s+)?(file\\s+)?([\\w./-]+\\.[\\w]+)",
     "calls": [{"name": "read", "arguments": {"path": "$5"}}]},
    {"after_tool": "read", "reply": "Here it is:\n{{result}}"},
    {"user_pattern": "\\b(search|grep|look)\\s+(for\\s+)?[\"']?([^\"']+?)[\"']?\\s*$",
     "calls": [{"name": "grep", "arguments": {"pattern": "$3"}}]},
    {"after_tool": "grep", "reply": "Matches:\n{{result}}"},
    {"user_pattern": "\\b(list|show|what)\\b.*\\b(files|directory|folder|here)\\b",
     "calls": [{"name": "list", "arguments": {"path": "."}}]},
    {"after_tool": "list", "reply": "Files here:\n{{result}}"},
    {"user_pattern": "\\b(?:call|use|run|check)\\s+(?:the\\s+|my\\s+)?([\\w.-]+)(?:\\s*(?:,|and)\\s*(?:the\\s+|my\\s+)?([\\w.-]+))?",
     "calls": [{"name": "$1", "arguments": {}}, {"name": "$2", "arguments": {}}]},
    {"user_pattern": "^\\s*(hi|hello|hey)\\b", "reply": "Hello! I am toolwire's offline demo model. Ask me to add something to your to-do list."}
  ],
  "fallback": "I am toolwire's offline demo model (no network, no API key). Try:\n  add 'buy milk' to my to-do list\n  show my to-do list\n  complete 1\n  list the files here\n  read README.md\n  search for TODO\nFor a real model: toolwire chat --provider openai --model gpt-4o-mini (key in OPENAI_API_KEY)."
})json";
}

}  // namespace toolwire::demo
