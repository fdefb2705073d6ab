// toolwire/tools/registry.h — the tool registry and single-call dispatch.
//
// Register tools once (the name is checked, the schema compiled; an invalid
// schema is refused with an error naming where it is wrong), then dispatch
// model tool calls. Dispatch never throws: an unknown tool, arguments that are
// not JSON or do not match the schema, and handler exceptions all become an
// is_error ToolResultPart carrying the call id, which the model can act on.
//
//   tools::Registry reg;
//   Status st = reg.add(std::move(spec));           // see tool.h
//   ir::ToolCallPart call{"call_1", "get_weather", R"({"town":"Oslo"})"};
//   ir::ToolResultPart r = reg.dispatch(call);       // runs in this thread
//   // r.is_error, text "invalid arguments for get_weather:\n/city: required property missing"
//
// Concurrent batches, timeouts and exclusive tools live in executor.h.
// A Registry is read-only after setup: add() is not safe concurrently with
// dispatch; dispatch/find are safe from many threads.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "toolwire/core/result.h"
#include "toolwire/ir/parts.h"
#include "toolwire/ir/tool.h"
#include "toolwire/tools/schema.h"
#include "toolwire/tools/tool.h"

namespace toolwire::tools {

// A registered tool: its spec plus the compiled argument schema.
class Tool {
 public:
  const std::string& name() const { return spec_.name; }
  const std::string& wire_name() const { return wire_name_; }
  const std::string& description() const { return spec_.description; }
  const ToolSpec& spec() const { return spec_; }
  bool exclusive() const { return spec_.exclusive; }
  // The argument schema as given (draft 2020-12 / draft-07).
  const nlohmann::json& schema() const { return schema_.source(); }
  const CompiledSchema& compiled() const { return schema_; }
  // The IR definition under the wire name (what codecs send to models).
  ir::ToolDefinition definition() const;

  // Validates arguments; the error lists violations as "/ptr: message" lines.
  Status validate(const nlohmann::json& args) const { return schema_.validate(args); }

 private:
  friend class Registry;
  Tool(ToolSpec spec, std::string wire_name, CompiledSchema schema)
      : spec_(std::move(spec)), wire_name_(std::move(wire_name)), schema_(std::move(schema)) {}
  ToolSpec spec_;
  std::string wire_name_;
  CompiledSchema schema_;
};

// A call that passed lookup, JSON parsing and validation, ready for its handler.
struct PreparedCall {
  const Tool* tool = nullptr;
  nlohmann::json args;
};

class Registry {
 public:
  Registry();
  ~Registry();
  Registry(Registry&&) noexcept;
  Registry& operator=(Registry&&) noexcept;

  // Checks the name (names.h), refuses duplicates (by name and wire name),
  // compiles the schema. The handler must be set.
  Status add(ToolSpec spec);

  // Removes a tool by internal name; false when unknown. Setup-time only, like
  // add() (MCP servers re-list their tools between turns): pointers to the
  // removed Tool dangle afterwards.
  bool remove(std::string_view name);

  // Finds by internal name or wire name; nullptr when unknown.
  const Tool* find(std::string_view name) const;
  // All tools in registration order.
  const std::vector<std::unique_ptr<Tool>>& tools() const { return tools_; }
  // Internal names in registration order.
  std::vector<std::string> names() const;
  size_t size() const { return tools_.size(); }
  // IR definitions of every tool, for a request's tool list.
  std::vector<ir::ToolDefinition> definitions() const;

  // Lookup + JSON parse + strict-null stripping + validation. On failure the
  // error result to hand the model (is_error, call id kept).
  Result<PreparedCall> prepare(const ir::ToolCallPart& call) const;

  // prepare() then run the handler in this thread (callback and future
  // handlers are waited for, up to ctx.deadline). Never throws.
  ir::ToolResultPart dispatch(const ir::ToolCallPart& call, ToolContext ctx = {}) const;

 private:
  std::vector<std::unique_ptr<Tool>> tools_;
  std::unordered_map<std::string, const Tool*> by_name_;  // internal and wire names
};

// The error result for a call that never reached its handler.
ir::ToolResultPart error_result(std::string call_id, std::string message);
// Converts a handler's output to the IR result part for `call_id`.
ir::ToolResultPart to_result(std::string call_id, ToolOutput out);

// Runs the handler of a prepared call in this thread, turning exceptions into
// error results and waiting for async handlers up to ctx.deadline (after which
// ctx.cancel is cancelled and a timeout error returned).
ToolOutput run_handler(const PreparedCall& call, ToolContext& ctx);

}  // namespace toolwire::tools
