// response_format.h — what the request codecs share for structured output
// (ir::BasicResponseFormat): reading and writing the schema's members, the
// schema check, the warnings for what a target cannot say, and the members of
// a container object (Responses `text`, Anthropic `output_config`) the IR does
// not model, kept as extras "<container>.<member>" and written back inside
// the container for the same dialect.
#pragma once

#include <string>
#include <string_view>

#include "dialects/common/borrowed_ir.h"
#include "dialects/common/fields.h"
#include "dialects/common/style.h"
#include "toolwire/core/json_valid.h"
#include "toolwire/core/json_writer.h"
#include "toolwire/ir/request.h"

namespace toolwire::dialects {

// The name written where a dialect requires one and the IR has none.
inline constexpr std::string_view kDefaultFormatName = "response";

// `name`, `description`, `schema` and `strict` of `obj` (the members beside
// `type` in Responses' text.format, inside Chat's json_schema), into `rf`;
// kind becomes json_schema. The schema must be a JSON object.
template <class S>
Status decode_schema_members(json::object obj, const json::Path& path,
                             ir::BasicResponseFormat<S>& rf) {
  using T = IrText<S>;
  enum { kName, kDescription, kSchema, kStrict };
  static constexpr std::string_view kKeys[] = {"name", "description", "schema", "strict"};
  const auto f = json::pick(obj, kKeys);
  rf.kind = ir::ResponseFormatKind::json_schema;
  if (f.has[kName]) {
    TW_ASSIGN(auto s, json::as_string(f.e[kName], json::Path(path, "name")));
    rf.name = T::keep(s);
  }
  if (f.has[kDescription]) {
    TW_ASSIGN(auto s, json::as_string(f.e[kDescription], json::Path(path, "description")));
    rf.description = T::keep(s);
  }
  if (f.has[kSchema]) {
    if (!f.e[kSchema].is_object())
      return json::invalid(json::Path(path, "schema"), "the schema is not a JSON object");
    rf.schema = T::raw_json(f.e[kSchema]);
  }
  if (f.has[kStrict]) {
    TW_ASSIGN(bool b, json::as_bool(f.e[kStrict], json::Path(path, "strict")));
    rf.strict = b;
  }
  return Status::Ok();
}

// The schema to write: `{}`-free IR (no schema) writes an empty object schema;
// text not starting with '{' or (unless `raw_verified`) not JSON is refused.
template <class S>
Result<std::string_view> checked_format_schema(const ir::BasicResponseFormat<S>& rf,
                                               bool raw_verified, const json::Path& path) {
  const std::string_view schema = rf.schema;
  if (schema.empty()) return std::string_view(R"({"type":"object"})");
  if (schema.front() != '{' || (!raw_verified && !is_valid_json(schema)))
    return json::invalid(path, "the response format's schema is not a JSON object");
  return schema;
}

// The OpenAI members: "name" (kDefaultFormatName if none), "description",
// "schema", "strict" (Chat inside json_schema, Responses beside "type").
template <class S>
void write_schema_members(JsonWriter& w, const ir::BasicResponseFormat<S>& rf,
                          std::string_view schema) {
  const std::string_view name = rf.name;
  w.field("name", name.empty() ? kDefaultFormatName : name);
  if (!std::string_view(rf.description).empty()) w.field("description", rf.description);
  w.field_raw("schema", schema);
  if (rf.strict) w.field("strict", *rf.strict);
}

// Warnings for a target that has no `strict` flag, or no description.
template <class S>
void warn_format_losses(const ir::BasicResponseFormat<S>& rf, std::string_view target,
                        const json::Path& path, Warnings& warnings, bool has_description) {
  if (rf.strict == false)
    warn(warnings, "response_format_strict_ignored", path,
         std::string(target) + " always holds the answer to the schema; strict: false is not sent");
  if (!has_description && !std::string_view(rf.description).empty())
    warn(warnings, "dropped_response_format_description", path,
         std::string(target) + " takes no description of the response format");
}

// The extras "<prefix><member>" (prefix ends in '.') kept from a container.
template <class S>
bool has_nested_extras(const ir::BasicRequest<S>& req, bool same, std::string_view prefix) {
  if (!same) return false;
  for (const auto& x : req.extra)
    if (std::string_view(x.key).starts_with(prefix)) return true;
  return false;
}
template <class S>
void write_nested_extras(JsonWriter& w, const ir::BasicRequest<S>& req, bool same,
                         std::string_view prefix) {
  if (!same) return;
  for (const auto& x : req.extra)
    if (std::string_view(x.key).starts_with(prefix))
      w.field_raw(std::string_view(x.key).substr(prefix.size()), x.raw_json);
}
// A container member the IR does not model, as such an extra.
template <class S>
void keep_nested_extra(ir::BasicRequest<S>& req, std::string_view prefix, std::string_view key,
                       json::element value) {
  req.extra.push_back(ir::BasicExtraField<S>{
      IrText<S>::made(std::string(prefix) + std::string(key)), IrText<S>::raw_json(value)});
}

// A container object that holds the format under `format_key` beside other
// members (Responses `text`, Anthropic `output_config`, Bedrock
// `outputConfig`): `decode(value, path)` (Result<bool>: false for a format
// this dialect does not know) reads the format; every other member, and an
// unknown format, is kept as an extra under `prefix`.
// `take(member, value, path)` (Result<bool>, optional) reads other members
// the IR models (Responses `text.verbosity`); false: kept as an extra.
template <class S, class Decode, class Take>
Status decode_format_container(json::element value, const json::Path& path,
                               std::string_view format_key, std::string_view prefix,
                               ir::BasicRequest<S>& req, Decode&& decode, Take&& take) {
  TW_ASSIGN(json::object obj, json::as_object(value, path));
  for (auto [member, v] : obj) {
    if (member == format_key && !v.is_null()) {
      TW_ASSIGN(bool known, decode(v, json::Path(path, member)));
      if (known) continue;
    }
    TW_ASSIGN(bool taken, take(member, v, json::Path(path, member)));
    if (taken) continue;
    keep_nested_extra(req, prefix, member, v);
  }
  return Status::Ok();
}
template <class S, class Decode>
Status decode_format_container(json::element value, const json::Path& path,
                               std::string_view format_key, std::string_view prefix,
                               ir::BasicRequest<S>& req, Decode&& decode) {
  return decode_format_container(
      value, path, format_key, prefix, req, std::forward<Decode>(decode),
      [](std::string_view, json::element, const json::Path&) -> Result<bool> { return false; });
}

// Writes `key: {...}` when there is a format (`has_format`: `write_format(w)`,
// returning Status, writes its member) or extras kept under `prefix`.
template <class S, class WriteFormat>
Status write_format_container(JsonWriter& w, const ir::BasicRequest<S>& req, bool same,
                              std::string_view key, std::string_view prefix, bool has_format,
                              WriteFormat&& write_format) {
  if (!has_format && !has_nested_extras(req, same, prefix)) return Status::Ok();
  w.key(key);
  w.begin_object();
  if (has_format) TW_TRY(write_format(w));
  write_nested_extras(w, req, same, prefix);
  w.end_object();
  return Status::Ok();
}

// The OpenAI spelling of a format, as both OpenAI APIs write it: its "type",
// and for a schema its members (under `schema_key` when not empty, as Chat's
// "json_schema"); the schema is checked at `schema_path`.
template <class S>
Status write_openai_format(JsonWriter& w, const ir::BasicResponseFormat<S>& rf,
                           std::string_view schema_key, bool raw_verified,
                           const json::Path& schema_path) {
  switch (rf.kind) {
    case ir::ResponseFormatKind::text:
      w.field("type", "text");
      break;
    case ir::ResponseFormatKind::json_object:
      w.field("type", "json_object");
      break;
    case ir::ResponseFormatKind::json_schema: {
      TW_ASSIGN(std::string_view schema, checked_format_schema(rf, raw_verified, schema_path));
      w.field("type", "json_schema");
      if (!schema_key.empty()) {
        w.key(schema_key);
        w.begin_object();
      }
      write_schema_members(w, rf, schema);
      if (!schema_key.empty()) w.end_object();
      break;
    }
  }
  return Status::Ok();
}

}  // namespace toolwire::dialects
