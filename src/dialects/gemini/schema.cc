// Tool schemas both ways. Decoding: Gemini's OpenAPI types may be upper case
// (the @google/genai SDK sends "OBJECT", "STRING"): JSON Schema's are lower
// case. Encoding: reduced to Gemini's subset by the exporter every dialect
// shares (src/schema/gemini_schema.cc); a schema already inside the subset
// (the common case) is spliced as is without building an nlohmann value.
#include <nlohmann/json.hpp>

#include "dialects/common/tool_schema.h"
#include "dialects/gemini/wire.h"
#include "toolwire/core/json_depth.h"
#include "toolwire/schema/json_schema.h"

namespace toolwire::dialects::gemini {
namespace {

using json::Path;

bool has_upper(std::string_view s) {
  for (char c : s)
    if (c >= 'A' && c <= 'Z') return true;
  return false;
}

// True when some "type" member (at any depth) is a string with upper case.
bool needs_lowering(json::element e) {
  if (e.is_object()) {
    const json::object members = e.get_object().value_unsafe();
    for (auto [key, value] : members) {
      if (key == "type" && value.is_string() && has_upper(value.get_string().value_unsafe()))
        return true;
      if ((value.is_object() || value.is_array()) && needs_lowering(value)) return true;
    }
  } else if (e.is_array()) {
    const json::array elements = e.get_array().value_unsafe();
    for (json::element v : elements)
      if ((v.is_object() || v.is_array()) && needs_lowering(v)) return true;
  }
  return false;
}

void write_lowered(json::element e, JsonWriter& w, std::string& out) {
  if (e.is_object()) {
    w.begin_object();
    const json::object fields = e.get_object().value_unsafe();
    for (auto [key, value] : fields) {
      w.key(key);
      if (key == "type" && value.is_string()) {
        std::string t(value.get_string().value_unsafe());
        for (char& c : t)
          if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
        w.string(t);
      } else {
        write_lowered(value, w, out);
      }
    }
    w.end_object();
  } else if (e.is_array()) {
    w.begin_array();
    const json::array elements = e.get_array().value_unsafe();
    for (json::element v : elements) write_lowered(v, w, out);
    w.end_array();
  } else {
    std::string scalar;
    json::append_compact(scalar, e);
    w.raw(scalar);
  }
}

bool same_ci(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char c = a[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != b[i]) return false;
  }
  return true;
}

// Keys the exporter keeps unchanged.
bool kept_key(std::string_view k) {
  static constexpr std::string_view kKept[] = {
      "description",   "title",         "nullable",  "maxItems",         "minItems",
      "minProperties", "maxProperties", "minLength", "maxLength",        "pattern",
      "minimum",       "maximum",       "default",   "propertyOrdering", "example"};
  for (std::string_view x : kKept)
    if (x == k) return true;
  return false;
}

bool format_ok(std::string_view type, std::string_view f) {
  if (type == "string") return f == "enum" || f == "date-time";
  if (type == "integer") return f == "int32" || f == "int64";
  if (type == "number") return f == "float" || f == "double";
  return false;
}

// True when the exporter would keep `s` as it is (up to key order): only
// kept keywords, one type that is not "null", string enums, non-empty
// properties, required naming declared properties, one items schema.
bool in_subset(json::element e, int depth) {
  if (depth > 32 || !e.is_object()) return false;
  json::object obj = e.get_object().value_unsafe();
  std::string_view type, format;
  bool has_enum = false;
  json::element props, required;
  bool has_props = false, has_required = false;
  for (auto [key, value] : obj) {
    if (key == "type") {
      if (!value.is_string()) return false;
      type = value.get_string().value_unsafe();
      if (type == "null") return false;
    } else if (key == "properties") {
      if (!value.is_object() || value.get_object().value_unsafe().size() == 0) return false;
      const json::object props_obj = value.get_object().value_unsafe();
      for (auto [name, sub] : props_obj)
        if (!in_subset(sub, depth + 1)) return false;
      props = value;
      has_props = true;
    } else if (key == "items") {
      if (!in_subset(value, depth + 1) || value.get_object().value_unsafe().size() == 0)
        return false;
    } else if (key == "enum") {
      if (!value.is_array() || value.get_array().value_unsafe().size() == 0) return false;
      const json::array values = value.get_array().value_unsafe();
      for (json::element v : values)
        if (!v.is_string()) return false;
      has_enum = true;
    } else if (key == "required") {
      if (!value.is_array() || value.get_array().value_unsafe().size() == 0) return false;
      required = value;
      has_required = true;
    } else if (key == "format") {
      if (!value.is_string()) return false;
      format = value.get_string().value_unsafe();
    } else if (key == "nullable") {
      if (!value.is_bool()) return false;
    } else if (!kept_key(key)) {
      return false;
    }
  }
  if (has_enum && type.empty()) return false;  // the exporter adds "type":"string"
  if (!format.empty() && !format_ok(type, format)) return false;
  if (has_required) {
    if (!has_props) return false;
    json::object p = props.get_object().value_unsafe();
    const json::array names = required.get_array().value_unsafe();
    for (json::element r : names) {
      if (!r.is_string() || p[r.get_string().value_unsafe()].error()) return false;
    }
  }
  return true;
}

// What scrub() does with a keyword, found with one switch on its length
// instead of a string compare per keyword (a schema has hundreds of keys).
enum class Key { kept, type, enumeration, properties, items, required, format, rewritten, dropped };

Key classify(std::string_view k) {
  auto is = [&](std::string_view x) { return k == x; };
  switch (k.size()) {
    case 4:
      if (is("type")) return Key::type;
      if (is("enum")) return Key::enumeration;
      if (is("$ref")) return Key::rewritten;
      return Key::dropped;
    case 5:
      if (is("title")) return Key::kept;
      if (is("items")) return Key::items;
      if (is("anyOf") || is("oneOf") || is("allOf") || is("const")) return Key::rewritten;
      return Key::dropped;
    case 6:
      return is("format") ? Key::format : Key::dropped;
    case 7:
      if (is("minimum") || is("maximum") || is("pattern") || is("default") || is("example"))
        return Key::kept;
      return Key::dropped;
    case 8:
      if (is("nullable") || is("maxItems") || is("minItems")) return Key::kept;
      if (is("required")) return Key::required;
      if (is("examples")) return Key::rewritten;
      return Key::dropped;
    case 9:
      return is("minLength") || is("maxLength") ? Key::kept : Key::dropped;
    case 10:
      if (is("properties")) return Key::properties;
      return Key::dropped;
    case 11:
      if (is("description")) return Key::kept;
      if (is("prefixItems")) return Key::rewritten;
      return Key::dropped;
    case 13:
      return is("minProperties") || is("maxProperties") ? Key::kept : Key::dropped;
    case 16:
      if (is("propertyOrdering")) return Key::kept;
      if (is("exclusiveMinimum") || is("exclusiveMaximum")) return Key::rewritten;
      return Key::dropped;
    default:
      return Key::dropped;
  }
}

// The exporter's reduction written straight from the DOM for the schemas it
// handles by dropping and copying keywords: false (the caller falls back to
// the exporter) at anything it rewrites ($ref, anyOf/oneOf/allOf, type
// arrays, "null", const, non-string enums, exclusive bounds, examples, tuple
// items, boolean schemas). A test holds the two to the same output.
bool scrub(json::element e, JsonWriter& w, std::string& out, int depth) {
  if (depth > 32 || !e.is_object()) return false;
  const json::object obj = e.get_object().value_unsafe();
  std::string_view type;
  bool has_enum = false;
  json::element props, required;
  bool has_props = false, has_required = false;
  for (auto [key, value] : obj) {
    switch (classify(key)) {
      case Key::type:
        if (!value.is_string()) return false;
        type = value.get_string().value_unsafe();
        if (type == "null") return false;
        break;
      case Key::enumeration: {
        if (!value.is_array() || value.get_array().value_unsafe().size() == 0) return false;
        const json::array values = value.get_array().value_unsafe();
        for (json::element v : values)
          if (!v.is_string()) return false;
        has_enum = true;
        break;
      }
      case Key::properties:
        if (!value.is_object()) return false;
        props = value;
        has_props = value.get_object().value_unsafe().size() > 0;
        break;
      case Key::items:
        if (!value.is_object()) return false;
        break;
      case Key::required:
        if (!has_required) required = value;  // the first, as the DOM lookup found it
        has_required = true;
        break;
      case Key::rewritten:
        return false;
      default:
        break;
    }
  }
  w.begin_object();
  if (!type.empty())
    w.field("type", type);
  else if (has_enum)
    w.field("type", "string");
  for (auto [key, value] : obj) {
    switch (classify(key)) {
      case Key::kept:
      case Key::enumeration:
        w.key(key);
        if (value.is_string()) {
          w.string(value.get_string().value_unsafe());
        } else {
          w.raw({});  // the separator; the value follows straight into `out`
          json::append_compact(out, value);
        }
        break;
      case Key::format:
        if (value.is_string() && format_ok(type, value.get_string().value_unsafe())) {
          w.key(key);
          w.string(value.get_string().value_unsafe());
        }
        break;
      case Key::properties:
        if (has_props) {
          w.key("properties");
          w.begin_object();
          const json::object p = value.get_object().value_unsafe();
          for (auto [name, sub] : p) {
            w.key(name);
            if (!scrub(sub, w, out, depth + 1)) return false;
          }
          w.end_object();
        }
        break;
      case Key::items:
        w.key("items");
        if (!scrub(value, w, out, depth + 1)) return false;
        break;
      default:
        break;
    }
  }
  if (has_props && has_required && required.is_array()) {
    const json::object p = props.get_object().value_unsafe();
    const json::array names = required.get_array().value_unsafe();
    bool open = false;
    for (json::element r : names) {
      if (!r.is_string() || p[r.get_string().value_unsafe()].error()) continue;
      if (!open) {
        w.key("required");
        w.begin_array();
        open = true;
      }
      w.string(r.get_string().value_unsafe());
    }
    if (open) w.end_array();
  }
  w.end_object();
  return true;
}

bool declares_properties(json::element e) {
  json::element props;
  return json::get(e.get_object().value_unsafe(), "properties", props) && props.is_object() &&
         props.get_object().value_unsafe().size() > 0;
}

}  // namespace

// Parses `text` on `parser` through a reused padded copy (no allocation per
// call, unlike simdjson's realloc_if_needed). The element lives until the
// next parse on `parser`.
bool parse_padded(simdjson::dom::parser& parser, std::string_view text, json::element& out) {
  thread_local std::string buffer;
  buffer.assign(text);
  buffer.reserve(text.size() + simdjson::SIMDJSON_PADDING);
  return !parser.parse(buffer.data(), buffer.size(), false).get(out);
}

Status decode_schema(json::element schema, const Path& path, std::string& out) {
  TW_ASSIGN(json::object obj, json::as_object(schema, path));
  json::element type;
  if (json::get(obj, "type", type) &&
      !(type.is_string() && same_ci(type.get_string().value_unsafe(), "object"))) {
    std::string got = type.is_string() ? "\"" + std::string(type.get_string().value_unsafe()) + "\""
                                       : std::string(json::type_name(type.type()));
    return json::invalid(Path(path, "type"),
                         "a tool's parameters must be of type \"object\", got " + got);
  }
  if (!needs_lowering(schema)) [[likely]] {
    out = json::compact(schema);
  } else {
    out.clear();
    JsonWriter w(out);
    write_lowered(schema, w, out);
  }
  // What decodes must encode again: a schema the subset cannot hold (a
  // property whose schema is a string, say) is refused here, with its path,
  // not when the request is sent on. Schemas already in the subset, nearly
  // all of them, are known good without a second parse.
  if (in_subset(schema, 0)) [[likely]]
    return Status::Ok();
  std::string reduced;
  return encode_schema(out, path, reduced, nullptr);
}

Status encode_schema(std::string_view schema, const Path& path, std::string& out, bool* reduced) {
  out.clear();
  if (reduced) *reduced = false;
  if (schema.empty()) return Status::Ok();
  // Not the request decoder's parser: a borrowed IR points into its document.
  thread_local simdjson::dom::parser parser;
  json::element root;
  if (!parse_padded(parser, schema, root) || !root.is_object())
    return json::invalid(path, "tool input schema is not a JSON object");
  TW_TRY(json::check_tool_schema(root, path));
  const bool properties = declares_properties(root);
  if (in_subset(root, 0)) [[likely]] {
    if (properties) out.assign(schema);  // already Gemini's: as it is
    return Status::Ok();
  }
  if (reduced) *reduced = true;
  {
    JsonWriter w(out);
    if (scrub(root, w, out, 0)) {
      if (!properties) out.clear();
      return Status::Ok();
    }
  }
  out.clear();
  return export_schema(schema, path, out);
}

bool scrub_schema(std::string_view schema, std::string& out) {
  out.clear();
  thread_local simdjson::dom::parser parser;
  json::element root;
  if (!parse_padded(parser, schema, root)) return false;
  JsonWriter w(out);
  return scrub(root, w, out, 0);
}

Status export_schema(std::string_view schema, const Path& path, std::string& out) {
  out.clear();
  auto parsed = parse_json_bounded<nlohmann::ordered_json>(schema);
  if (parsed.is_discarded()) return json::invalid(path, "tool input schema is not a JSON object");
  auto converted = schema::to_gemini_schema(parsed);
  if (!converted) {
    Error e = converted.error();
    e.message = "cannot reduce the schema to Gemini's subset: " + e.message +
                (e.path.empty() ? "" : " (at " + e.path + ")");
    e.path = path.str();
    return e;
  }
  auto props = converted->find("properties");
  if (props == converted->end() || !props->is_object() || props->empty()) return Status::Ok();
  out = converted->dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  return Status::Ok();
}

}  // namespace toolwire::dialects::gemini
