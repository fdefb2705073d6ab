// OpenAI structured-outputs ("strict") conversion: every property required,
// the ones the source did not require made nullable, additionalProperties
// false, recursively; keywords strict mode rejects are dropped (toolwire still
// validates arguments against the original schema). Schemas strict mode cannot
// express at all (free-form objects, untyped values, not, prefixItems) are an
// `unimplemented` error naming the path, so the caller can export non-strict.
#include <set>
#include <string>

#include "schema/local_ref.h"
#include "toolwire/schema/json_schema.h"

namespace toolwire::schema {
namespace {

using json = nlohmann::ordered_json;
using namespace export_detail;

// Keywords strict mode does not support (OpenAI structured-outputs docs).
const std::set<std::string>& dropped() {
  static const std::set<std::string> k = {"minLength",
                                          "maxLength",
                                          "patternProperties",
                                          "unevaluatedProperties",
                                          "propertyNames",
                                          "minProperties",
                                          "maxProperties",
                                          "unevaluatedItems",
                                          "contains",
                                          "minContains",
                                          "maxContains",
                                          "uniqueItems",
                                          "default",
                                          "examples",
                                          "$schema",
                                          "$id",
                                          "$comment",
                                          "dependentRequired",
                                          "dependentSchemas",
                                          "dependencies",
                                          "if",
                                          "then",
                                          "else",
                                          "additionalItems"};
  return k;
}
const std::set<std::string>& supported_formats() {
  static const std::set<std::string> k = {"date-time", "time", "date", "duration", "email",
                                          "hostname",  "ipv4", "ipv6", "uuid"};
  return k;
}

Error unsupported(const std::string& path, const std::string& what) {
  return make_error(ErrorCode::unimplemented, "OpenAI strict mode cannot express " + what, path);
}

bool is_object_schema(const json& s) {
  auto t = s.find("type");
  return (t != s.end() && *t == "object") || s.contains("properties");
}

json nullable(json s) {
  if (s.contains("type")) {
    json& t = s["type"];
    if (t.is_string() && t != "null")
      t = json::array({t, "null"});
    else if (t.is_array() && std::find(t.begin(), t.end(), json("null")) == t.end())
      t.push_back("null");
    if (s.contains("const")) s["enum"] = json::array({s["const"]}), s.erase("const");
    if (s.contains("enum") && s["enum"].is_array() &&
        std::find(s["enum"].begin(), s["enum"].end(), json()) == s["enum"].end())
      s["enum"].push_back(nullptr);
    return s;
  }
  return json{{"anyOf", json::array({std::move(s), json{{"type", "null"}}})}};
}

Result<json> strictify(const json& s, const std::string& path);

Result<json> strictify_object(const json& s, json out, const std::string& path) {
  const json props = s.value("properties", json::object());
  json ap = s.value("additionalProperties", json(true));
  if (!props.is_object()) return unsupported(path, "non-object properties");
  if (props.empty() && ap != false) return unsupported(path, "a free-form object (no properties)");
  std::set<std::string> req;
  if (s.contains("required") && s["required"].is_array())
    for (const auto& r : s["required"])
      if (r.is_string()) req.insert(r.get<std::string>());
  json new_props = json::object();
  json required = json::array();
  for (auto it = props.begin(); it != props.end(); ++it) {
    auto p = strictify(it.value(), child_path(child_path(path, "properties"), it.key()));
    if (!p) return p.error();
    new_props[it.key()] = req.count(it.key()) ? std::move(*p) : nullable(std::move(*p));
    required.push_back(it.key());
  }
  out["properties"] = std::move(new_props);
  out["required"] = std::move(required);
  out["additionalProperties"] = false;
  return out;
}

Result<json> strictify(const json& s, const std::string& path) {
  if (s.is_boolean() || (s.is_object() && s.empty()))
    return unsupported(path, "a schema accepting any value");
  if (!s.is_object()) return unsupported(path, "a non-object schema");
  if (s.contains("not")) return unsupported(path, "'not'");
  if (s.contains("prefixItems") || (s.contains("items") && s["items"].is_array()))
    return unsupported(path, "tuple arrays (prefixItems)");
  json out = json::object();
  for (auto it = s.begin(); it != s.end(); ++it) {
    const std::string& k = it.key();
    if (dropped().count(k) || k == "properties" || k == "required" || k == "additionalProperties")
      continue;
    if (k == "format" && (!it->is_string() || !supported_formats().count(it->get<std::string>())))
      continue;
    if (k == "anyOf" || k == "oneOf" || k == "allOf") {
      if (!it->is_array()) return unsupported(path, k + " that is not an array");
      if (k == "allOf" && it->size() != 1) return unsupported(path, "allOf with several schemas");
      json arr = json::array();
      for (size_t i = 0; i < it->size(); ++i) {
        auto sub = strictify((*it)[i], index_path(child_path(path, k), i));
        if (!sub) return sub.error();
        arr.push_back(std::move(*sub));
      }
      if (k == "allOf") {
        for (auto jt = arr[0].begin(); jt != arr[0].end(); ++jt) out[jt.key()] = jt.value();
      } else {
        out["anyOf"] = std::move(arr);  // oneOf becomes anyOf: strict mode has no oneOf
      }
    } else if (k == "items") {
      auto sub = strictify(*it, child_path(path, "items"));
      if (!sub) return sub.error();
      out["items"] = std::move(*sub);
    } else if ((k == "$defs" || k == "definitions") && it->is_object()) {
      json defs = json::object();
      for (auto jt = it->begin(); jt != it->end(); ++jt) {
        auto sub = strictify(jt.value(), child_path(child_path(path, k), jt.key()));
        if (!sub) return sub.error();
        defs[jt.key()] = std::move(*sub);
      }
      out[k] = std::move(defs);
    } else {
      out[k] = *it;
    }
  }
  if (is_object_schema(s)) return strictify_object(s, std::move(out), path);
  if (out.value("type", json()) == "array" && !out.contains("items"))
    return unsupported(path, "an array without an items schema");
  return out;
}

using pjson = nlohmann::json;

bool allows_null(const pjson& s) {
  if (!s.is_object()) return s == true;
  auto t = s.find("type");
  if (t != s.end())
    return *t == "null" ||
           (t->is_array() && std::find(t->begin(), t->end(), pjson("null")) != t->end());
  return false;
}

void strip(const pjson& root, const pjson& schema, pjson& args, int depth) {
  if (depth > 64 || !schema.is_object()) return;
  const pjson* s = &schema;
  if (s->contains("$ref") && (*s)["$ref"].is_string()) {
    const pjson* target = resolve_local_ref(root, (*s)["$ref"].get<std::string>());
    if (target && target != s) {
      strip(root, *target, args, depth + 1);
    }
  }
  if (args.is_object() && s->contains("properties") && (*s)["properties"].is_object()) {
    const pjson& props = (*s)["properties"];
    std::set<std::string> req;
    if (s->contains("required") && (*s)["required"].is_array())
      for (const auto& r : (*s)["required"])
        if (r.is_string()) req.insert(r.get<std::string>());
    for (auto it = args.begin(); it != args.end();) {
      auto p = props.find(it.key());
      if (p != props.end() && it->is_null() && !req.count(it.key()) && !allows_null(*p)) {
        it = args.erase(it);
        continue;
      }
      if (p != props.end()) strip(root, *p, *it, depth + 1);
      ++it;
    }
  }
  if (args.is_array() && s->contains("items") && (*s)["items"].is_object())
    for (auto& e : args) strip(root, (*s)["items"], e, depth + 1);
  for (const char* k : {"anyOf", "oneOf", "allOf"})
    if (s->contains(k) && (*s)[k].is_array())
      for (const auto& sub : (*s)[k]) strip(root, sub, args, depth + 1);
}

}  // namespace

Result<nlohmann::ordered_json> to_openai_strict_schema(const nlohmann::ordered_json& schema) {
  return strictify(schema, "$");
}

void strip_strict_nulls(const nlohmann::json& schema, nlohmann::json& args) {
  strip(schema, schema, args, 0);
}

}  // namespace toolwire::schema
