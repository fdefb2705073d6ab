// Whether a schema fits constrained decoding (constrained_schema.h).
#include "dialects/common/constrained_schema.h"

#include "dialects/common/json_in.h"

namespace toolwire::dialects {
namespace {

using json::element;

bool refused_keyword(std::string_view key) {
  static constexpr std::string_view kRefused[] = {"minimum",
                                                  "maximum",
                                                  "exclusiveMinimum",
                                                  "exclusiveMaximum",
                                                  "multipleOf",
                                                  "minLength",
                                                  "maxLength",
                                                  "maxItems",
                                                  "uniqueItems",
                                                  "minProperties",
                                                  "maxProperties",
                                                  "patternProperties",
                                                  "propertyNames",
                                                  "not",
                                                  "if",
                                                  "then",
                                                  "else",
                                                  "oneOf",
                                                  "dependentRequired",
                                                  "dependentSchemas",
                                                  "contains",
                                                  "minContains",
                                                  "maxContains",
                                                  "unevaluatedProperties",
                                                  "unevaluatedItems"};
  for (std::string_view k : kRefused)
    if (k == key) return true;
  return false;
}

bool fits(element schema);

// Every schema of an object's values (properties, $defs) or of an array.
bool all_fit(element e) {
  if (e.is_object()) {
    const json::object obj = e.get_object().value_unsafe();
    for (auto [k, v] : obj)
      if (!fits(v)) return false;
    return true;
  }
  if (e.is_array()) {
    const json::array arr = e.get_array().value_unsafe();
    for (element v : arr)
      if (!fits(v)) return false;
    return true;
  }
  return false;
}

bool fits(element schema) {
  if (schema.is_bool()) return true;
  if (!schema.is_object()) return false;
  bool object_type = false, properties = false, closed = false;
  const json::object obj = schema.get_object().value_unsafe();
  for (auto [key, v] : obj) {
    if (refused_keyword(key)) return false;
    if (key == "type") {
      if (v.is_string()) object_type = v.get_string().value_unsafe() == "object";
      if (v.is_array()) {
        const json::array types = v.get_array().value_unsafe();
        for (element t : types)
          object_type |= t.is_string() && t.get_string().value_unsafe() == "object";
      }
    } else if (key == "properties") {
      properties = true;
      if (!all_fit(v)) return false;
    } else if (key == "additionalProperties") {
      closed = v.is_bool() && !v.get_bool().value_unsafe();
    } else if (key == "minItems") {
      if (!v.is_uint64() && !v.is_int64()) return false;
      if (v.is_uint64() ? v.get_uint64().value_unsafe() > 1 : v.get_int64().value_unsafe() > 1)
        return false;
    } else if (key == "$ref") {
      if (!v.is_string() || !v.get_string().value_unsafe().starts_with("#")) return false;
    } else if (key == "items" || key == "additionalItems") {
      if (!(v.is_array() ? all_fit(v) : fits(v))) return false;
    } else if (key == "prefixItems" || key == "anyOf" || key == "allOf" || key == "$defs" ||
               key == "definitions") {
      if (!all_fit(v)) return false;
    }
  }
  return closed || !(object_type || properties);
}

}  // namespace

bool fits_constrained_decoding(std::string_view schema) {
  // Not the request decoder's parser: a borrowed IR points into its document.
  thread_local simdjson::dom::parser parser;
  element root;
  if (parser.parse(schema.data(), schema.size(), true).get(root) || !root.is_object()) return false;
  return fits(root);
}

}  // namespace toolwire::dialects
