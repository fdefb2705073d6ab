#include "dialects/common/tool_schema.h"

namespace toolwire::dialects::json {

Status check_tool_schema(element schema, const Path& path) {
  if (!schema.is_object()) [[unlikely]]
    return wrong_type(schema, path, "object");
  auto type = schema.get_object().value_unsafe()["type"];
  if (type.error()) return Status::Ok();  // no "type": an object is implied
  element t = type.value_unsafe();
  if (t.is_string() && t.get_string().value_unsafe() == "object") [[likely]]
    return Status::Ok();
  std::string got = t.is_string() ? "\"" + std::string(t.get_string().value_unsafe()) + "\""
                                  : std::string(type_name(t.type()));
  return invalid(
      Path(path, "type"),
      "a tool's input schema must be of type \"object\" (the APIs refuse any other), got " + got);
}

Status check_tool_schema_text(std::string_view schema, const Path& path) {
  thread_local simdjson::dom::parser parser;
  auto doc = parser.parse(schema.data(), schema.size(), /*realloc_if_needed=*/true);
  if (doc.error()) return invalid(path, "tool input schema is not a JSON object");
  return check_tool_schema(doc.value_unsafe(), path);
}

}  // namespace toolwire::dialects::json
