// Registry: registration (name rules, schema compile) and single-call
// dispatch. Every failure before or inside the handler becomes an is_error
// result for the model; nothing here throws to the caller.
#include "toolwire/tools/registry.h"

#include <algorithm>
#include <exception>
#include <future>
#include <string>

#include "toolwire/core/json_depth.h"
#include "toolwire/tools/names.h"
#include "toolwire/tools/schema_export.h"

namespace toolwire::tools {

using nlohmann::json;

namespace {

constexpr size_t kMaxArgDepth = 128;  // deeper arguments are refused before validation

// Iterative depth check: arguments are untrusted and validation recurses.
bool too_deep(const json& v) {
  std::vector<std::pair<const json*, size_t>> stack{{&v, 1}};
  while (!stack.empty()) {
    auto [node, depth] = stack.back();
    stack.pop_back();
    if (depth > kMaxArgDepth) return true;
    if (node->is_structured())
      for (const auto& child : *node) stack.push_back({&child, depth + 1});
  }
  return false;
}

std::string snippet(const std::string& s) { return s.size() <= 80 ? s : s.substr(0, 80) + "..."; }

}  // namespace

ir::ToolDefinition Tool::definition() const {
  ir::ToolDefinition d;
  d.name = wire_name_;
  d.description = spec_.description;
  d.input_schema = spec_.input_schema;
  if (spec_.strict) d.strict = true;
  return d;
}

Registry::Registry() = default;
Registry::~Registry() = default;
Registry::Registry(Registry&&) noexcept = default;
Registry& Registry::operator=(Registry&&) noexcept = default;

Status Registry::add(ToolSpec spec) {
  TW_TRY(check_tool_name(spec.name));
  std::string wire = to_wire_name(spec.name);
  if (by_name_.count(spec.name) || by_name_.count(wire))
    return make_error(ErrorCode::failed_precondition,
                      "tool '" + spec.name + "' is already registered (or its wire name '" + wire +
                          "' is taken)");
  bool has_handler = std::visit([](const auto& h) { return static_cast<bool>(h); }, spec.handler);
  if (!has_handler)
    return make_error(ErrorCode::invalid_argument, "tool '" + spec.name + "' has no handler");
  auto compiled = CompiledSchema::compile(std::string_view(spec.input_schema));
  if (!compiled) {
    Error e = compiled.error();
    e.message = "tool '" + spec.name + "': " + e.message;
    return e;
  }
  const json& src = compiled->source();
  if (!src.is_object() || src.value("type", json()) != "object")
    return make_error(ErrorCode::invalid_argument,
                      "tool '" + spec.name +
                          "': input_schema must be an object schema with \"type\": \"object\"");
  auto tool = std::unique_ptr<Tool>(new Tool(std::move(spec), wire, std::move(*compiled)));
  by_name_[tool->name()] = tool.get();
  by_name_[wire] = tool.get();
  tools_.push_back(std::move(tool));
  return {};
}

const Tool* Registry::find(std::string_view name) const {
  auto it = by_name_.find(std::string(name));
  return it == by_name_.end() ? nullptr : it->second;
}

bool Registry::remove(std::string_view name) {
  auto it =
      std::find_if(tools_.begin(), tools_.end(), [&](const auto& t) { return t->name() == name; });
  if (it == tools_.end()) return false;
  by_name_.erase((*it)->name());
  by_name_.erase((*it)->wire_name());
  tools_.erase(it);
  return true;
}

std::vector<std::string> Registry::names() const {
  std::vector<std::string> out;
  out.reserve(tools_.size());
  for (const auto& t : tools_) out.push_back(t->name());
  return out;
}

std::vector<ir::ToolDefinition> Registry::definitions() const {
  std::vector<ir::ToolDefinition> out;
  out.reserve(tools_.size());
  for (const auto& t : tools_) out.push_back(t->definition());
  return out;
}

Result<PreparedCall> Registry::prepare(const ir::ToolCallPart& call) const {
  const Tool* tool = find(call.name);
  if (!tool) {
    std::string avail;
    for (const auto& t : tools_) avail += (avail.empty() ? "" : ", ") + t->wire_name();
    return make_error(ErrorCode::not_found,
                      "unknown tool '" + snippet(call.name) +
                          "'; available tools: " + (avail.empty() ? "(none)" : avail));
  }
  PreparedCall p;
  p.tool = tool;
  // Models send "" for a tool without parameters; that means {}.
  bool blank = call.arguments.find_first_not_of(" \t\r\n") == std::string::npos;
  if (!call.arguments_valid && !blank)
    return make_error(ErrorCode::invalid_argument,
                      "arguments for tool '" + tool->wire_name() +
                          "' are not valid JSON: " + snippet(call.arguments));
  if (json_deeper_than(call.arguments, kMaxArgDepth))
    return make_error(ErrorCode::invalid_argument, "arguments for tool '" + tool->wire_name() +
                                                       "' are nested deeper than " +
                                                       std::to_string(kMaxArgDepth));
  p.args =
      blank ? json::object() : json::parse(call.arguments, nullptr, /*allow_exceptions=*/false);
  if (p.args.is_discarded())
    return make_error(ErrorCode::invalid_argument,
                      "arguments for tool '" + tool->wire_name() +
                          "' are not valid JSON: " + snippet(call.arguments));
  if (too_deep(p.args))
    return make_error(ErrorCode::invalid_argument, "arguments for tool '" + tool->wire_name() +
                                                       "' are nested deeper than " +
                                                       std::to_string(kMaxArgDepth));
  if (tool->spec().strict) schema::strip_strict_nulls(tool->schema(), p.args);
  Status st = tool->validate(p.args);
  if (!st)
    return make_error(
        ErrorCode::invalid_argument,
        "invalid arguments for tool '" + tool->wire_name() + "':\n" + st.error().message);
  return p;
}

ir::ToolResultPart error_result(std::string call_id, std::string message) {
  ir::ToolResultPart r;
  r.call_id = std::move(call_id);
  r.content.emplace_back(ir::TextPart{std::move(message)});
  r.is_error = true;
  return r;
}

ir::ToolResultPart to_result(std::string call_id, ToolOutput out) {
  ir::ToolResultPart r;
  r.call_id = std::move(call_id);
  r.content = std::move(out.content);
  r.is_error = out.is_error;
  return r;
}

namespace {

ToolOutput failed(const Tool& tool, const char* what) {
  return ToolOutput::error("tool '" + tool.wire_name() + "' failed: " + what);
}

ToolOutput timed_out(const Tool& tool, ToolContext& ctx) {
  ctx.cancel.cancel();
  return ToolOutput::error("tool '" + tool.wire_name() + "' timed out");
}

ToolOutput wait_future(const Tool& tool, std::future<ToolOutput>& f, ToolContext& ctx) {
  if (!f.valid()) return failed(tool, "handler returned no future");
  if (ctx.deadline == Clock::time_point::max()) {
    f.wait();
  } else if (f.wait_until(ctx.deadline) != std::future_status::ready) {
    return timed_out(tool, ctx);
  }
  try {
    return f.get();
  } catch (const std::exception& e) {
    return failed(tool, e.what());
  } catch (...) {
    return failed(tool, "unknown exception");
  }
}

}  // namespace

ToolOutput run_handler(const PreparedCall& call, ToolContext& ctx) {
  const Tool& tool = *call.tool;
  try {
    const Handler& h = tool.spec().handler;
    if (auto* sync = std::get_if<SyncHandler>(&h)) return (*sync)(call.args, ctx);
    if (auto* fut = std::get_if<FutureHandler>(&h)) {
      std::future<ToolOutput> f = (*fut)(call.args, ctx);
      return wait_future(tool, f, ctx);
    }
    // Callback handler: the first completion wins, later ones are ignored.
    auto promise = std::make_shared<std::promise<ToolOutput>>();
    auto once = std::make_shared<std::atomic<bool>>(false);
    std::future<ToolOutput> f = promise->get_future();
    Completion done = [promise, once](ToolOutput out) {
      if (!once->exchange(true)) promise->set_value(std::move(out));
    };
    std::get<CallbackHandler>(h)(call.args, ctx, done);
    return wait_future(tool, f, ctx);
  } catch (const std::exception& e) {
    return failed(tool, e.what());
  } catch (...) {
    return failed(tool, "unknown exception");
  }
}

ir::ToolResultPart Registry::dispatch(const ir::ToolCallPart& call, ToolContext ctx) const {
  Result<PreparedCall> p = prepare(call);
  if (!p) return error_result(call.id, p.error().message);
  ctx.call_id = call.id;
  ctx.tool_name = p->tool->name();
  return to_result(call.id, run_handler(*p, ctx));
}

}  // namespace toolwire::tools
