// Gemini function declarations take an OpenAPI 3.0 subset: no $ref, no type
// arrays, a short keyword list. The conversion inlines local $refs, turns
// null in a type array (or an anyOf member {"type":"null"}) into
// nullable:true, merges allOf, and drops everything else. Every rewrite only
// widens what the schema accepts (toolwire validates against the original),
// except a recursive $ref, which cannot be inlined and is an error.
#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "schema/local_ref.h"
#include "toolwire/schema/json_schema.h"

namespace toolwire::schema {
namespace {

using json = nlohmann::ordered_json;
using namespace export_detail;

const std::set<std::string>& kept() {
  static const std::set<std::string> k = {
      "description",   "title",         "nullable",  "maxItems",         "minItems",
      "minProperties", "maxProperties", "minLength", "maxLength",        "pattern",
      "minimum",       "maximum",       "default",   "propertyOrdering", "example"};
  return k;
}

bool format_ok(const std::string& type, const std::string& f) {
  if (type == "string") return f == "enum" || f == "date-time";
  if (type == "integer") return f == "int32" || f == "int64";
  if (type == "number") return f == "float" || f == "double";
  return false;
}

struct Converter {
  const json& root;
  std::vector<const json*> ref_stack;

  Result<json> convert(const json& s, const std::string& path) {
    if (s.is_boolean() || (s.is_object() && s.empty())) return json::object();
    if (!s.is_object())
      return make_error(ErrorCode::invalid_argument, "schema must be an object", path);
    if (ref_stack.size() > 64)
      return make_error(ErrorCode::unimplemented, "schema nested too deeply", path);

    json out = json::object();
    bool nullable = false;
    if (s.contains("$ref")) {
      auto r = inline_ref(s, path);
      if (!r) return r.error();
      out = std::move(*r);
    }
    // type: string or array; "null" becomes nullable.
    std::vector<std::string> types;
    if (auto t = s.find("type"); t != s.end()) {
      if (t->is_string()) types.push_back(t->get<std::string>());
      if (t->is_array())
        for (const auto& e : *t)
          if (e.is_string()) types.push_back(e.get<std::string>());
    }
    if (std::erase(types, "null")) nullable = true;
    if (types.size() == 1) out["type"] = types[0];

    for (auto it = s.begin(); it != s.end(); ++it) {
      const std::string& k = it.key();
      if (kept().count(k)) {
        out[k] = *it;
      } else if (k == "format" && it->is_string() && types.size() == 1 &&
                 format_ok(types[0], it->get<std::string>())) {
        out[k] = *it;
      } else if (k == "exclusiveMinimum" && it->is_number()) {
        out["minimum"] = *it;  // widened: Gemini has no exclusive bounds
      } else if (k == "exclusiveMaximum" && it->is_number()) {
        out["maximum"] = *it;
      } else if (k == "examples" && it->is_array() && !it->empty()) {
        out["example"] = (*it)[0];
      } else if (k == "enum" || k == "const") {
        json values = k == "enum" ? *it : json::array({*it});
        if (!values.is_array()) continue;
        auto nulls = std::remove(values.begin(), values.end(), json());
        if (nulls != values.end()) nullable = true;
        values.erase(nulls, values.end());
        bool strings =
            std::all_of(values.begin(), values.end(), [](const json& v) { return v.is_string(); });
        if (strings && !values.empty()) {
          out["enum"] = std::move(values);
          if (!out.contains("type")) out["type"] = "string";
        } else if (!values.empty()) {  // Gemini enums are strings only: say it in words
          std::string d = out.value("description", s.value("description", std::string()));
          out["description"] = d + (d.empty() ? "" : " ") + "One of: " + values.dump() + ".";
        }
      } else if (k == "properties" && it->is_object()) {
        json props = json::object();
        for (auto jt = it->begin(); jt != it->end(); ++jt) {
          auto p = convert(jt.value(), child_path(child_path(path, "properties"), jt.key()));
          if (!p) return p.error();
          props[jt.key()] = std::move(*p);
        }
        if (!props.empty()) out["properties"] = std::move(props);
      } else if (k == "items" || k == "prefixItems") {
        auto items = convert_items(s, path);
        if (!items) return items.error();
        if (!items->is_null()) out["items"] = std::move(*items);
      } else if ((k == "anyOf" || k == "oneOf") && it->is_array()) {
        TW_TRY(convert_any_of(*it, child_path(path, k), out, nullable));
      } else if (k == "allOf" && it->is_array()) {
        for (size_t i = 0; i < it->size(); ++i) {
          auto sub = convert((*it)[i], index_path(child_path(path, k), i));
          if (!sub) return sub.error();
          merge_into(out, *sub);
        }
      }
    }
    if (s.contains("required") && s["required"].is_array() && out.contains("properties")) {
      json req = json::array();
      for (const auto& r : s["required"])
        if (r.is_string() && out["properties"].contains(r.get<std::string>())) req.push_back(r);
      if (!req.empty()) out["required"] = std::move(req);
    }
    if (types.size() > 1 && !out.contains("anyOf")) {
      json any = json::array();
      for (const auto& t : types) any.push_back({{"type", t}});
      out["anyOf"] = std::move(any);
    }
    if (nullable) out["nullable"] = true;
    return out;
  }

  Result<json> inline_ref(const json& s, const std::string& path) {
    if (!s["$ref"].is_string())
      return make_error(ErrorCode::invalid_argument, "$ref must be a string", path);
    std::string ref = s["$ref"].get<std::string>();
    const json* target = resolve_local_ref(root, ref);
    if (!target)
      return make_error(ErrorCode::unimplemented, "cannot inline non-local $ref '" + ref + "'",
                        path);
    if (std::find(ref_stack.begin(), ref_stack.end(), target) != ref_stack.end())
      return make_error(ErrorCode::unimplemented,
                        "recursive $ref '" + ref + "' cannot be inlined for Gemini", path);
    ref_stack.push_back(target);
    auto r = convert(*target, child_path(path, "$ref"));
    ref_stack.pop_back();
    return r;
  }

  Result<json> convert_items(const json& s, const std::string& path) {
    // Gemini has one items schema: a tuple becomes anyOf of its positions.
    std::vector<const json*> parts;
    if (s.contains("prefixItems") && s["prefixItems"].is_array())
      for (const auto& e : s["prefixItems"]) parts.push_back(&e);
    if (s.contains("items")) {
      if (s["items"].is_array())
        for (const auto& e : s["items"]) parts.push_back(&e);
      else if (s["items"] != false)
        parts.push_back(&s["items"]);
    }
    if (parts.empty()) return json();
    json any = json::array();
    for (size_t i = 0; i < parts.size(); ++i) {
      auto sub = convert(*parts[i], index_path(child_path(path, "items"), i));
      if (!sub) return sub.error();
      if (sub->empty()) return json::object();  // one position accepts anything
      if (std::find(any.begin(), any.end(), *sub) == any.end()) any.push_back(std::move(*sub));
    }
    if (any.size() == 1) return any[0];
    return json{{"anyOf", std::move(any)}};
  }

  Status convert_any_of(const json& arr, const std::string& path, json& out, bool& nullable) {
    json any = json::array();
    for (size_t i = 0; i < arr.size(); ++i) {
      const json& sub = arr[i];
      if (sub.is_object() && sub.size() == 1 && sub.value("type", json()) == "null") {
        nullable = true;
        continue;
      }
      auto c = convert(sub, index_path(path, i));
      if (!c) return c.error();
      if (c->value("nullable", false)) nullable = true;
      any.push_back(std::move(*c));
    }
    if (any.size() == 1)
      merge_into(out, any[0]);
    else if (!any.empty())
      out["anyOf"] = std::move(any);
    return {};
  }

  static void merge_into(json& out, const json& sub) {
    for (auto it = sub.begin(); it != sub.end(); ++it) {
      if (it.key() == "properties" && out.contains("properties")) {
        for (auto jt = it->begin(); jt != it->end(); ++jt) out["properties"][jt.key()] = jt.value();
      } else if (it.key() == "required" && out.contains("required")) {
        for (const auto& r : *it)
          if (std::find(out["required"].begin(), out["required"].end(), r) == out["required"].end())
            out["required"].push_back(r);
      } else if (!out.contains(it.key())) {
        out[it.key()] = it.value();
      }
    }
  }
};

}  // namespace

Result<json> to_gemini_schema(const json& schema) {
  Converter c{schema, {}};
  return c.convert(schema, "$");
}

}  // namespace toolwire::schema
