// Gemini's response MIME type and schema (structured_output.h).
#include "dialects/gemini/structured_output.h"

#include "dialects/common/response_format.h"
#include "dialects/gemini/wire.h"

namespace toolwire::dialects::gemini {

using json::Path;
using Kind = ir::ResponseFormatKind;

bool FormatMembers::take(std::string_view key, std::string_view raw_key, json::element value) {
  if (key == "responseMimeType") {
    mime_key = raw_key, mime = value, has_mime = true;
  } else if (key == "responseSchema") {
    schema_key = raw_key, schema = value, has_schema = true;
  } else if (key == "responseJsonSchema") {
    json_schema_key = raw_key, json_schema = value, has_json_schema = true;
  } else {
    return false;
  }
  return true;
}

namespace {

// The members kept as they came (generationConfig.<raw key>).
template <class S>
void keep_raw(const FormatMembers& m, ir::BasicRequest<S>& req) {
  auto keep = [&](bool has, std::string_view key, json::element v) {
    if (has)
      req.extra.push_back(ir::BasicExtraField<S>{
          IrText<S>::made(std::string(kGenerationConfigPrefix) + std::string(key)),
          IrText<S>::raw_json(v)});
  };
  keep(m.has_mime, m.mime_key, m.mime);
  keep(m.has_schema, m.schema_key, m.schema);
  keep(m.has_json_schema, m.json_schema_key, m.json_schema);
}

}  // namespace

template <class S>
Status decode_response_format(const FormatMembers& m, const Path& path, ir::BasicRequest<S>& req) {
  if (!m.has_mime && !m.has_schema && !m.has_json_schema) return Status::Ok();
  if (!m.has_mime || !m.mime.is_string() ||
      m.mime.get_string().value_unsafe() != "application/json") {
    keep_raw(m, req);  // text/plain, text/x.enum...: this dialect's own
    return Status::Ok();
  }
  ir::BasicResponseFormat<S> rf;
  rf.kind = Kind::json_object;
  if (m.has_json_schema) {
    const Path sp(path, m.json_schema_key);
    if (!m.json_schema.is_object()) return json::invalid(sp, "the schema is not a JSON object");
    rf.kind = Kind::json_schema;
    rf.schema = IrText<S>::raw_json(m.json_schema);
  } else if (m.has_schema) {
    // The subset's upper-case types in lower case (decode_schema); a schema
    // whose root is not an object stays as it came.
    std::string lowered;
    if (!decode_schema(m.schema, Path(path, m.schema_key), lowered)) {
      keep_raw(m, req);
      return Status::Ok();
    }
    rf.kind = Kind::json_schema;
    rf.schema = IrText<S>::made(std::move(lowered));
  }
  req.response_format = std::move(rf);
  return Status::Ok();
}

template <class S>
bool has_response_format(const ir::BasicRequest<S>& req) {
  return req.response_format && req.response_format->kind != Kind::text;
}

template <class S>
Status write_response_format(JsonWriter& w, const ir::BasicRequest<S>& req, bool raw_verified,
                             Warnings& warnings) {
  if (!has_response_format(req)) return Status::Ok();
  const auto& rf = *req.response_format;
  const Path root, gc(root, "generationConfig");
  w.field("responseMimeType", "application/json");
  if (rf.kind != Kind::json_schema) return Status::Ok();
  warn_format_losses(rf, "Gemini", Path(gc, "responseJsonSchema"), warnings,
                     /*has_description=*/false);
  TW_ASSIGN(std::string_view schema,
            checked_format_schema(rf, raw_verified, Path(gc, "responseJsonSchema")));
  // Inside the subset (every Gemini model takes it) as responseSchema; else
  // as JSON Schema, which no reduction loses.
  std::string subset;
  bool reduced = true;
  if (encode_schema(schema, Path(gc, "responseSchema"), subset, &reduced) && !reduced &&
      !subset.empty())
    w.field_raw("responseSchema", subset);
  else
    w.field_raw("responseJsonSchema", schema);
  return Status::Ok();
}

template Status decode_response_format<ir::Owning>(const FormatMembers&, const Path&, ir::Request&);
template Status decode_response_format<Borrowed>(const FormatMembers&, const Path&,
                                                 ir::BasicRequest<Borrowed>&);
template bool has_response_format<ir::Owning>(const ir::Request&);
template bool has_response_format<Borrowed>(const ir::BasicRequest<Borrowed>&);
template Status write_response_format<ir::Owning>(JsonWriter&, const ir::Request&, bool, Warnings&);
template Status write_response_format<Borrowed>(JsonWriter&, const ir::BasicRequest<Borrowed>&,
                                                bool, Warnings&);

}  // namespace toolwire::dialects::gemini
