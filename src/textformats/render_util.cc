#include "textformats/render_util.h"

#include "toolwire/core/json_depth.h"
#include "toolwire/core/json_writer.h"

namespace toolwire::textformats::render {

nlohmann::ordered_json schema_of(const ir::ToolDefinition& t) {
  auto j = parse_json_bounded<nlohmann::ordered_json>(t.input_schema);
  if (j.is_discarded() || !j.is_object()) return nlohmann::ordered_json{{"type", "object"}};
  return j;
}

nlohmann::ordered_json openai_tool(const ir::ToolDefinition& t) {
  nlohmann::ordered_json f = nlohmann::ordered_json::object();
  f["name"] = t.name;
  if (!t.description.empty()) f["description"] = t.description;
  f["parameters"] = schema_of(t);
  return nlohmann::ordered_json{{"type", "function"}, {"function", std::move(f)}};
}

std::string tools_json_lines(std::span<const ir::ToolDefinition> tools) {
  std::string out;
  for (const auto& t : tools) {
    if (!out.empty()) out += '\n';
    out += openai_tool(t).dump();
  }
  return out;
}

std::string tools_json_array(std::span<const ir::ToolDefinition> tools, int indent) {
  nlohmann::ordered_json a = nlohmann::ordered_json::array();
  for (const auto& t : tools) a.push_back(openai_tool(t));
  return a.dump(indent);
}

namespace {

std::string ts_type(const nlohmann::ordered_json& s, int depth);

std::string ts_object(const nlohmann::ordered_json& s, int depth) {
  const auto props = s.find("properties");
  if (props == s.end() || !props->is_object() || props->empty()) return "{}";
  const auto req = s.find("required");
  auto required = [&](const std::string& k) {
    if (req == s.end() || !req->is_array()) return false;
    for (const auto& r : *req)
      if (r == k) return true;
    return false;
  };
  std::string pad(static_cast<size_t>(depth) * 4, ' ');
  std::string out = "{";
  for (const auto& [k, v] : props->items()) {
    if (v.is_object()) {
      auto d = v.find("description");
      if (d != v.end() && d->is_string()) out += "\n" + pad + "// " + d->get<std::string>();
    }
    out += "\n" + pad + k + (required(k) ? "" : "?") + ": " + ts_type(v, depth + 1) + ",";
  }
  out += "\n" + std::string(depth > 0 ? static_cast<size_t>(depth - 1) * 4 : 0, ' ') + "}";
  return out;
}

std::string ts_type(const nlohmann::ordered_json& s, int depth) {
  if (!s.is_object()) return "any";
  if (auto e = s.find("enum"); e != s.end() && e->is_array() && !e->empty()) {
    std::string out;
    for (const auto& v : *e) out += (out.empty() ? "" : " | ") + v.dump();
    return out;
  }
  auto t = s.find("type");
  if (t == s.end() || !t->is_string()) return "any";
  std::string type = t->get<std::string>();
  if (type == "integer") return "number";
  if (type == "object") return ts_object(s, depth);
  if (type == "array") {
    auto items = s.find("items");
    return (items == s.end() ? std::string("any") : ts_type(*items, depth)) + "[]";
  }
  return type;
}

}  // namespace

std::string typescript_namespace(std::span<const ir::ToolDefinition> tools) {
  std::string out = "namespace functions {\n\n";
  for (const auto& t : tools) {
    if (!t.description.empty()) out += "// " + t.description + "\n";
    nlohmann::ordered_json s = schema_of(t);
    std::string params = ts_object(s, 1);
    out +=
        "type " + t.name +
        (params == "{}" ? std::string(" = () => any;\n\n") : " = (_: " + params + ") => any;\n\n");
  }
  out += "} // namespace functions";
  return out;
}

nlohmann::ordered_json arguments_of(const ir::ToolCallPart& c) {
  auto j = parse_json_bounded<nlohmann::ordered_json>(c.arguments);
  if (j.is_discarded() || !j.is_object()) return nlohmann::ordered_json::object();
  return j;
}

std::string arguments_text(const ir::ToolCallPart& c) { return arguments_of(c).dump(); }

std::string json_quoted(std::string_view s) {
  std::string out;
  JsonWriter::append_escaped(out, s);
  return out;
}

std::string python_literal(const nlohmann::ordered_json& v) {
  switch (v.type()) {
    case nlohmann::ordered_json::value_t::null:
      return "None";
    case nlohmann::ordered_json::value_t::boolean:
      return v.get<bool>() ? "True" : "False";
    case nlohmann::ordered_json::value_t::string:
      return json_quoted(v.get<std::string>());
    case nlohmann::ordered_json::value_t::array: {
      std::string out = "[";
      for (const auto& x : v) out += (out.size() > 1 ? ", " : "") + python_literal(x);
      return out + "]";
    }
    case nlohmann::ordered_json::value_t::object: {
      std::string out = "{";
      for (const auto& [k, x] : v.items())
        out += (out.size() > 1 ? ", " : "") + json_quoted(k) + ": " + python_literal(x);
      return out + "}";
    }
    default:
      return v.dump();
  }
}

std::string python_kwargs(const nlohmann::ordered_json& args) {
  std::string out;
  for (const auto& [k, v] : args.items())
    out += (out.empty() ? "" : ", ") + k + "=" + python_literal(v);
  return out;
}

std::string xml_value(const nlohmann::ordered_json& v) {
  return v.is_string() ? v.get<std::string>() : v.dump();
}

const std::string* code_argument(const nlohmann::ordered_json& args) {
  if (args.size() != 1) return nullptr;
  auto code = args.find("code");
  return code != args.end() && code->is_string() ? code->get_ptr<const std::string*>() : nullptr;
}

std::string xml_tools_block(std::span<const ir::ToolDefinition> tools, std::string_view prelude) {
  return std::string(prelude) +
         "You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n" +
         tools_json_lines(tools) + "\n</tools>\n\n";
}

}  // namespace toolwire::textformats::render
