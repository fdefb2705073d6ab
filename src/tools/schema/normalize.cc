// Draft 2020-12 -> draft-07 rewrite so valijson (a draft-07 engine) can
// compile modern tool schemas, plus the two rewrites toolwire wants in every
// draft: `format` is dropped (annotation only) and `pattern` goes to the RE2
// keyword. Only subschema positions are walked: enum/const/default/examples
// are data and stay untouched.
#include <cstdint>
#include <string>
#include <utility>

#include "tools/schema/pattern_constraint.h"
#include "toolwire/tools/schema.h"

namespace toolwire::tools {
namespace {

using nlohmann::json;

bool is_map_keyword(const std::string& k) {
  return k == "properties" || k == "patternProperties" || k == "$defs" || k == "definitions" ||
         k == "dependentSchemas";
}
bool is_single_keyword(const std::string& k) {
  return k == "additionalProperties" || k == "additionalItems" || k == "contains" || k == "not" ||
         k == "if" || k == "then" || k == "else" || k == "propertyNames" ||
         k == "unevaluatedItems" || k == "unevaluatedProperties";
}
bool is_array_keyword(const std::string& k) {
  return k == "allOf" || k == "anyOf" || k == "oneOf" || k == "prefixItems";
}
bool is_count_keyword(const std::string& k) {
  return k == "minLength" || k == "maxLength" || k == "minItems" || k == "maxItems" ||
         k == "minProperties" || k == "maxProperties";
}
// Keywords that may sit beside $ref without changing its meaning.
bool is_ref_neutral(const std::string& k) {
  return k == "$ref" || k == "$id" || k == "$schema" || k == "$comment" || k == "$defs" ||
         k == "definitions" || k == "title" || k == "description" || k == "$anchor" ||
         k == "examples" || k == "default";
}

json walk(const json& s, bool modern, int depth);

json walk_array(const json& a, bool modern, int depth) {
  if (!a.is_array()) return a;
  json out = json::array();
  for (const auto& e : a) out.push_back(walk(e, modern, depth + 1));
  return out;
}

json walk(const json& s, bool modern, int depth) {
  if (!s.is_object() || depth > 256) return s;  // deeper nesting is refused by the meta check
  json out = json::object();
  for (auto it = s.begin(); it != s.end(); ++it) {
    const std::string& k = it.key();
    const json& v = it.value();
    if (k == "format") continue;
    if (is_count_keyword(k) && v.is_number_float() && v.get<double>() >= 0 &&
        v.get<double>() == static_cast<double>(static_cast<uint64_t>(v.get<double>()))) {
      out[k] = static_cast<uint64_t>(v.get<double>());  // 2.0 is an integer in JSON Schema
      continue;
    }
    if (k == "pattern" && v.is_string()) {
      out[schema_detail::kPatternKeyword] = v;
    } else if (is_map_keyword(k) && v.is_object()) {
      json m = json::object();
      for (auto jt = v.begin(); jt != v.end(); ++jt)
        m[jt.key()] = walk(jt.value(), modern, depth + 1);
      out[k] = std::move(m);
    } else if (is_single_keyword(k) || (k == "items" && !v.is_array())) {
      out[k] = walk(v, modern, depth + 1);
    } else if (is_array_keyword(k) || k == "items") {
      out[k] = walk_array(v, modern, depth);
    } else if (k == "dependencies" && v.is_object()) {
      json m = json::object();
      for (auto jt = v.begin(); jt != v.end(); ++jt)
        m[jt.key()] = jt.value().is_array() ? jt.value() : walk(jt.value(), modern, depth + 1);
      out[k] = std::move(m);
    } else {
      out[k] = v;
    }
  }
  if (!modern) return out;

  // prefixItems + items (2020-12) == items array + additionalItems (draft-07).
  if (out.contains("prefixItems")) {
    if (out.contains("items")) out["additionalItems"] = std::move(out["items"]);
    out["items"] = std::move(out["prefixItems"]);
    out.erase("prefixItems");
  }
  // dependentRequired / dependentSchemas were split out of `dependencies`.
  for (const char* k : {"dependentRequired", "dependentSchemas"}) {
    auto it = out.find(k);
    if (it == out.end() || !it->is_object()) continue;
    json& deps = out["dependencies"];
    if (!deps.is_object()) deps = json::object();
    for (auto jt = it->begin(); jt != it->end(); ++jt) deps[jt.key()] = jt.value();
    out.erase(k);
  }
  // In 2020-12 $ref applies beside its siblings; draft-07 ignores siblings.
  if (out.contains("$ref") && out["$ref"].is_string()) {
    bool siblings = false;
    for (auto it = out.begin(); it != out.end(); ++it) siblings |= !is_ref_neutral(it.key());
    if (siblings) {
      json ref = {{"$ref", out["$ref"]}};
      out.erase("$ref");
      json& all = out["allOf"];
      if (!all.is_array()) all = json::array();
      all.push_back(std::move(ref));
    }
  }
  return out;
}

bool declares_old_draft(const json& schema) {
  if (!schema.is_object()) return false;
  auto it = schema.find("$schema");
  if (it == schema.end() || !it->is_string()) return false;
  const auto& s = it->get_ref<const std::string&>();
  return s.find("draft-07") != std::string::npos || s.find("draft-06") != std::string::npos ||
         s.find("draft-04") != std::string::npos;
}

}  // namespace

nlohmann::json normalize_to_draft7(const nlohmann::json& schema) {
  return walk(schema, !declares_old_draft(schema), 0);
}

namespace schema_detail {
// ECMA-262 spells Unicode properties by long name (\p{Letter}); RE2 knows
// the short general-category names.
std::string ecma_to_re2(const std::string& pattern) {
  static const std::pair<const char*, const char*> kNames[] = {{"Letter", "L"},
                                                               {"Lowercase_Letter", "Ll"},
                                                               {"Uppercase_Letter", "Lu"},
                                                               {"Number", "N"},
                                                               {"Decimal_Number", "Nd"},
                                                               {"digit", "Nd"},
                                                               {"Punctuation", "P"},
                                                               {"Symbol", "S"},
                                                               {"Separator", "Z"},
                                                               {"Mark", "M"},
                                                               {"Other", "C"}};
  std::string out = pattern;
  for (const auto& [name, code] : kNames)
    for (const char* p : {"\\p{", "\\P{"}) {
      std::string from = std::string(p) + name + "}", to = std::string(p) + code + "}";
      for (size_t at = out.find(from); at != std::string::npos; at = out.find(from, at + to.size()))
        out.replace(at, from.size(), to);
    }
  return out;
}
}  // namespace schema_detail

}  // namespace toolwire::tools
