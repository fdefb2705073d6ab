// BFCL "parameters" -> JSON Schema (see bfcl.h for the mapping).
#include "toolwire/tools/bfcl.h"

#include <map>
#include <string>

namespace toolwire::tools {
namespace {

using json = nlohmann::ordered_json;

// BFCL / Python / Java / JavaScript type name -> JSON Schema type ("" = any).
const std::map<std::string, std::string>& type_map() {
  static const std::map<std::string, std::string> m = {
      {"dict", "object"},   {"object", "object"},   {"HashMap", "object"},   {"Map", "object"},
      {"float", "number"},  {"number", "number"},   {"double", "number"},    {"Double", "number"},
      {"Float", "number"},  {"tuple", "array"},     {"array", "array"},      {"list", "array"},
      {"Array", "array"},   {"ArrayList", "array"}, {"List", "array"},       {"integer", "integer"},
      {"int", "integer"},   {"long", "integer"},    {"Integer", "integer"},  {"Long", "integer"},
      {"short", "integer"}, {"byte", "integer"},    {"string", "string"},    {"str", "string"},
      {"String", "string"}, {"char", "string"},     {"Character", "string"}, {"boolean", "boolean"},
      {"bool", "boolean"},  {"Boolean", "boolean"}, {"null", "null"},        {"any", ""},
      {"Any", ""},
  };
  return m;
}

bool matches_type(const json& v, const std::string& t) {
  if (t == "object") return v.is_object();
  if (t == "array") return v.is_array();
  if (t == "string") return v.is_string();
  if (t == "boolean") return v.is_boolean();
  if (t == "null") return v.is_null();
  if (t == "integer")
    return v.is_number_integer() ||
           (v.is_number_float() &&
            v.get<double>() == static_cast<double>(static_cast<long long>(v.get<double>())));
  if (t == "number") return v.is_number();
  return true;
}

json convert(const json& s, int depth) {
  if (!s.is_object() || depth > 64) return json::object();
  json out = json::object();
  std::string type;
  bool has_type = false;
  if (auto t = s.find("type"); t != s.end() && t->is_string()) {
    auto m = type_map().find(t->get<std::string>());
    if (m != type_map().end()) type = m->second;
    has_type = !type.empty();
  }
  for (auto it = s.begin(); it != s.end(); ++it) {
    const std::string& k = it.key();
    if (k == "optional") continue;  // non-standard; `required` is what counts
    if (k == "type") {
      if (has_type) out["type"] = type;
    } else if (k == "properties" && it->is_object()) {
      json props = json::object();
      for (auto jt = it->begin(); jt != it->end(); ++jt)
        props[jt.key()] = convert(jt.value(), depth + 1);
      out["properties"] = std::move(props);
    } else if (k == "items" || k == "additionalProperties") {
      out[k] = it->is_object() ? convert(*it, depth + 1) : *it;
    } else if (k == "default") {
      if (!has_type || matches_type(*it, type)) out[k] = *it;
    } else if (k == "required" && it->is_array()) {
      json req = json::array();
      const json* props = s.contains("properties") ? &s["properties"] : nullptr;
      for (const auto& r : *it)
        if (r.is_string() && props && props->contains(r.get<std::string>()) &&
            std::find(req.begin(), req.end(), r) == req.end())
          req.push_back(r);
      out[k] = std::move(req);
    } else {
      out[k] = *it;
    }
  }
  return out;
}

}  // namespace

nlohmann::ordered_json from_bfcl_parameters(const nlohmann::ordered_json& parameters) {
  json out = convert(parameters, 0);
  if (!out.contains("type")) out["type"] = "object";
  if (!out.contains("properties")) out["properties"] = json::object();
  return out;
}

}  // namespace toolwire::tools
