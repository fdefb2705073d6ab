// toolwire/textformats/tool_set.h — the tools a text-format parser checks calls against.
//
// Built from OpenAI-style definitions (`[{"type":"function","function":{"name",
// "parameters"}}]`, or bare `{"name","parameters"}` objects) or from IR tool
// definitions. Each schema is compiled once (tools/schema.h).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "toolwire/core/result.h"
#include "toolwire/ir/tool.h"
#include "toolwire/tools/schema.h"

namespace toolwire::textformats {

class ToolSet {
 public:
  // A JSON array of tool definitions; invalid_argument names the bad entry.
  static Result<ToolSet> from_json(std::string_view json);
  static Result<ToolSet> from_definitions(const std::vector<ir::ToolDefinition>& defs);

  bool empty() const { return tools_.empty(); }
  bool has(std::string_view name) const { return tools_.find(name) != tools_.end(); }
  // The JSON Schema of one property of `tool`'s parameters, or null when unknown.
  const nlohmann::json* property_schema(std::string_view tool, std::string_view property) const;
  // OK, not_found for an unknown tool, invalid_argument (violations) otherwise.
  Status validate(std::string_view tool, const nlohmann::json& arguments) const;

 private:
  struct Entry {
    nlohmann::json schema;
    tools::CompiledSchema compiled;
  };
  Status add(const std::string& name, const nlohmann::json& schema);
  std::map<std::string, Entry, std::less<>> tools_;
};

}  // namespace toolwire::textformats
