#include "toolwire/textformats/tool_set.h"
#include "toolwire/core/json_depth.h"

namespace toolwire::textformats {

Status ToolSet::add(const std::string& name, const nlohmann::json& schema) {
  if (name.empty()) return make_error(ErrorCode::invalid_argument, "a tool has no name");
  auto compiled = tools::CompiledSchema::compile(schema);
  if (!compiled)
    return make_error(ErrorCode::invalid_argument,
                      name + ": bad parameters schema: " + compiled.error().message);
  tools_.insert_or_assign(name, Entry{schema, std::move(*compiled)});
  return {};
}

Result<ToolSet> ToolSet::from_json(std::string_view json) {
  nlohmann::json doc = parse_json_bounded<nlohmann::json>(json);
  if (doc.is_discarded() || !doc.is_array())
    return make_error(ErrorCode::invalid_argument,
                      "tools: expected a JSON array of tool definitions");
  ToolSet set;
  for (size_t i = 0; i < doc.size(); ++i) {
    const nlohmann::json& t = doc[i];
    const nlohmann::json* fn = &t;
    if (t.is_object() && t.contains("function") && t["function"].is_object()) fn = &t["function"];
    if (!fn->is_object() || !fn->contains("name") || !(*fn)["name"].is_string())
      return make_error(ErrorCode::invalid_argument, "a tool has no name",
                        "$[" + std::to_string(i) + "]");
    nlohmann::json schema =
        nlohmann::json{{"type", "object"}, {"properties", nlohmann::json::object()}};
    for (const char* k : {"parameters", "input_schema"})
      if (fn->contains(k) && (*fn)[k].is_object()) schema = (*fn)[k];
    Status st = set.add((*fn)["name"].get<std::string>(), schema);
    if (!st) {
      Error e = st.error();
      e.path = "$[" + std::to_string(i) + "]";
      return e;
    }
  }
  return set;
}

Result<ToolSet> ToolSet::from_definitions(const std::vector<ir::ToolDefinition>& defs) {
  ToolSet set;
  for (const auto& d : defs) {
    nlohmann::json schema = parse_json_bounded<nlohmann::json>(d.input_schema);
    if (schema.is_discarded())
      return make_error(ErrorCode::invalid_argument, d.name + ": the schema is not JSON");
    TW_TRY(set.add(d.name, schema));
  }
  return set;
}

const nlohmann::json* ToolSet::property_schema(std::string_view tool,
                                               std::string_view property) const {
  auto it = tools_.find(tool);
  if (it == tools_.end()) return nullptr;
  const nlohmann::json& s = it->second.schema;
  auto props = s.find("properties");
  if (props == s.end() || !props->is_object()) return nullptr;
  auto p = props->find(std::string(property));
  return p == props->end() ? nullptr : &*p;
}

Status ToolSet::validate(std::string_view tool, const nlohmann::json& arguments) const {
  auto it = tools_.find(tool);
  if (it == tools_.end())
    return make_error(ErrorCode::not_found, "unknown tool '" + std::string(tool) + "'");
  return it->second.compiled.validate(arguments);
}

}  // namespace toolwire::textformats
