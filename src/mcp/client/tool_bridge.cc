// MCP tools as registry tools: asynchronous handlers over Client::call_tool_async.
#include "toolwire/mcp/tool_bridge.h"

#include <algorithm>

#include "toolwire/mcp/content.h"
#include "toolwire/tools/names.h"

namespace toolwire::mcp {

using nlohmann::json;
using Ms = std::chrono::milliseconds;

namespace {

bool matches(const std::string& pattern, const std::string& name) {
  if (!pattern.empty() && pattern.back() == '*')
    return name.compare(0, pattern.size() - 1, pattern, 0, pattern.size() - 1) == 0;
  return pattern == name;
}

}  // namespace

tools::ToolSpec make_tool_spec(std::shared_ptr<Client> client, const McpTool& tool,
                               std::string registry_name, std::optional<Ms> timeout) {
  tools::ToolSpec spec;
  spec.name = std::move(registry_name);
  spec.description = tool.description.empty() ? tool.title : tool.description;
  spec.input_schema = tool.input_schema.dump();
  spec.timeout = timeout;
  std::shared_ptr<tools::CompiledSchema> out_schema;
  if (tool.output_schema)
    if (auto s = tools::CompiledSchema::compile(*tool.output_schema); s)
      out_schema = std::make_shared<tools::CompiledSchema>(std::move(*s));
  std::string mcp_name = tool.name;
  spec.handler =
      tools::CallbackHandler([client, mcp_name, out_schema](
                                 const json& args, tools::ToolContext ctx, tools::Completion done) {
        RequestOptions ro;
        ro.cancel = ctx.cancel;
        if (ctx.deadline != tools::Clock::time_point::max())
          ro.timeout =
              std::max(Ms(1), std::chrono::duration_cast<Ms>(ctx.deadline - tools::Clock::now()));
        client->call_tool_async(mcp_name, args, ro, [done, out_schema](Result<CallResult> r) {
          if (!r) return done(tools::ToolOutput::error(r.error().message));
          done(to_tool_output(*r, out_schema.get()));
        });
      });
  return spec;
}

std::string ServerTools::registry_name(const std::string& mcp_name) const {
  return opts_.prefix.empty() ? mcp_name : opts_.prefix + "__" + mcp_name;
}

bool ServerTools::allowed(const std::string& mcp_name) const {
  for (const auto& d : opts_.deny)
    if (matches(d, mcp_name)) return false;
  if (opts_.allow.empty()) return true;
  return std::any_of(opts_.allow.begin(), opts_.allow.end(),
                     [&](const std::string& a) { return matches(a, mcp_name); });
}

Result<SyncReport> ServerTools::sync(tools::Registry& registry, bool relist) {
  if (relist || client_->tools_generation() == 0) {
    auto listed = client_->list_tools();
    if (!listed) return listed.error();
  }
  uint64_t gen = client_->tools_generation();
  std::vector<McpTool> tools = client_->tools();
  SyncReport rep;
  std::vector<std::string> wanted;
  for (const McpTool& t : tools)
    if (allowed(t.name)) wanted.push_back(registry_name(t.name));
  // Remove what the server no longer offers (or lists differently: re-added below).
  std::vector<std::string> keep;
  for (const std::string& name : registered_) {
    registry.remove(name);
    if (std::find(wanted.begin(), wanted.end(), name) == wanted.end())
      rep.removed.push_back(name);
    else
      keep.push_back(name);
  }
  registered_.clear();
  for (const McpTool& t : tools) {
    if (!allowed(t.name)) continue;
    std::string name = registry_name(t.name);
    if (Status st = tools::check_tool_name(name); !st) {
      rep.skipped.push_back(t.name + ": " + st.error().message);
      continue;
    }
    Status st = registry.add(make_tool_spec(client_, t, name, opts_.timeout));
    if (!st) {
      rep.skipped.push_back(t.name + ": " + st.error().message);
      continue;
    }
    registered_.push_back(name);
    if (std::find(keep.begin(), keep.end(), name) == keep.end()) rep.added.push_back(name);
  }
  synced_generation_ = gen;
  return rep;
}

}  // namespace toolwire::mcp
