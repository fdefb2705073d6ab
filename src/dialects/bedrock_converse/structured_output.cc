// Converse `outputConfig` (structured_output.h).
#include "dialects/bedrock_converse/structured_output.h"

#include "dialects/common/response_format.h"
#include "toolwire/core/json_depth.h"

namespace toolwire::dialects::bedrock_converse {

using json::Path;
using Kind = ir::ResponseFormatKind;

namespace {

// False (and nothing set) for a shape this dialect does not know.
template <class S>
Result<bool> decode_text_format(json::element value, const Path& path, ir::BasicRequest<S>& req) {
  using T = IrText<S>;
  TW_ASSIGN(json::object obj, json::as_object(value, path));
  json::element type, structure, def;
  if (!json::get(obj, "type", type) || !type.is_string() ||
      type.get_string().value_unsafe() != "json_schema" ||
      !json::get(obj, "structure", structure) || !structure.is_object() ||
      !json::get(structure.get_object().value_unsafe(), "jsonSchema", def))
    return false;
  const Path structure_path(path, "structure"), dp(structure_path, "jsonSchema");
  TW_ASSIGN(json::object d, json::as_object(def, dp));
  enum { kSchema, kName, kDescription };
  static constexpr std::string_view kKeys[] = {"schema", "name", "description"};
  const auto f = json::pick(d, kKeys);
  const Path sp(dp, "schema");
  if (!f.has[kSchema]) return json::invalid(sp, "missing schema");
  TW_ASSIGN(std::string_view text, json::as_string(f.e[kSchema], sp));
  // The schema is JSON inside a string: parsed on a parser of its own, kept
  // compact (made, not a slice of the request).
  // Spliced into another dialect's request, it nests a few levels deeper.
  constexpr size_t kDepth = kMaxJsonDepth - 8;
  if (json_deeper_than(text, kDepth)) return json::invalid(sp, json_too_deep_message(kDepth));
  thread_local simdjson::dom::parser parser;
  json::element schema;
  if (parser.parse(text.data(), text.size(), true).get(schema) || !schema.is_object())
    return json::invalid(sp, "the schema is not the text of a JSON object");
  ir::BasicResponseFormat<S> rf;
  rf.kind = Kind::json_schema;
  rf.schema = T::made(json::compact(schema));
  if (f.has[kName]) {
    TW_ASSIGN(auto s, json::as_string(f.e[kName], Path(dp, "name")));
    rf.name = T::keep(s);
  }
  if (f.has[kDescription]) {
    TW_ASSIGN(auto s, json::as_string(f.e[kDescription], Path(dp, "description")));
    rf.description = T::keep(s);
  }
  req.response_format = std::move(rf);
  return true;
}

}  // namespace

template <class S>
Status decode_output_config(json::element value, const Path& path, ir::BasicRequest<S>& req) {
  return decode_format_container(
      value, path, "textFormat", kOutputConfigPrefix, req,
      [&](json::element v, const Path& p) { return decode_text_format(v, p, req); });
}

template <class S>
Status write_output_config(JsonWriter& w, const ir::BasicRequest<S>& req, bool same,
                           bool raw_verified, Warnings& warnings) {
  const bool schema = req.response_format && req.response_format->kind == Kind::json_schema;
  const Path root, config(root, "outputConfig"),
      path(config, "textFormat");  // (a Path points at its parent)
  return write_format_container(
      w, req, same, "outputConfig", kOutputConfigPrefix, schema, [&](JsonWriter& w) -> Status {
        const auto& rf = *req.response_format;
        warn_format_losses(rf, "Bedrock", path, warnings, /*has_description=*/true);
        const Path structure(path, "structure"), def(structure, "jsonSchema"), sp(def, "schema");
        TW_ASSIGN(std::string_view text, checked_format_schema(rf, raw_verified, sp));
        w.key("textFormat");
        w.begin_object();
        w.field("type", "json_schema");
        w.key("structure");
        w.begin_object();
        w.key("jsonSchema");
        w.begin_object();
        w.field("schema", text);  // a string holding the schema's JSON
        if (!std::string_view(rf.name).empty()) w.field("name", rf.name);
        if (!std::string_view(rf.description).empty()) w.field("description", rf.description);
        w.end_object();
        w.end_object();
        w.end_object();
        return Status::Ok();
      });
}

template Status decode_output_config<ir::Owning>(json::element, const Path&, ir::Request&);
template Status decode_output_config<Borrowed>(json::element, const Path&,
                                               ir::BasicRequest<Borrowed>&);
template Status write_output_config<ir::Owning>(JsonWriter&, const ir::Request&, bool, bool,
                                                Warnings&);
template Status write_output_config<Borrowed>(JsonWriter&, const ir::BasicRequest<Borrowed>&, bool,
                                              bool, Warnings&);

}  // namespace toolwire::dialects::bedrock_converse
