// Anthropic `output_config` (structured_output.h).
#include "dialects/anthropic_messages/structured_output.h"

#include "dialects/common/response_format.h"

namespace toolwire::dialects::anthropic_messages {

using json::Path;
using Kind = ir::ResponseFormatKind;

namespace {

// False (and nothing set) for a format type this dialect does not know.
template <class S>
Result<bool> decode_format(json::element value, const Path& path, ir::BasicRequest<S>& req) {
  TW_ASSIGN(json::object obj, json::as_object(value, path));
  json::element type_e, schema_e;
  const Path tp(path, "type");
  if (!json::get(obj, "type", type_e)) return json::invalid(tp, "missing format type");
  TW_ASSIGN(std::string_view type, json::as_string(type_e, tp));
  if (type != "json_schema") return false;
  const Path sp(path, "schema");
  if (!json::get(obj, "schema", schema_e)) return json::invalid(sp, "missing schema");
  if (!schema_e.is_object()) return json::invalid(sp, "the schema is not a JSON object");
  ir::BasicResponseFormat<S> rf;
  rf.kind = Kind::json_schema;
  rf.schema = IrText<S>::raw_json(schema_e);
  req.response_format = std::move(rf);
  return true;
}

}  // namespace

template <class S>
Status decode_output_config(std::string_view key, json::element value, const Path& path,
                            ir::BasicRequest<S>& req) {
  if (key == "output_format") {  // the beta spelling: the format itself
    TW_ASSIGN(bool known, decode_format(value, path, req));
    if (!known)
      req.extra.push_back(ir::BasicExtraField<S>{"output_format", IrText<S>::raw_json(value)});
    return Status::Ok();
  }
  return decode_format_container(
      value, path, "format", kOutputConfigPrefix, req,
      [&](json::element v, const Path& p) { return decode_format(v, p, req); },
      [&](std::string_view member, json::element v, const Path& p) -> Result<bool> {
        if (member != "effort" || v.is_null()) return false;
        TW_ASSIGN(std::string_view effort, json::as_string(v, p));
        if (!req.reasoning) req.reasoning.emplace();
        req.reasoning->effort = IrText<S>::keep(effort);
        return true;
      });
}

template <class S>
Status write_output_config(JsonWriter& w, const ir::BasicRequest<S>& req, bool same,
                           bool raw_verified, Warnings& warnings) {
  const bool schema = req.response_format && req.response_format->kind == Kind::json_schema;
  const Path root, config(root, "output_config"),
      path(config, "format");  // (a Path points at its parent)
  // The effort word is written for this dialect's own requests; from
  // another, reasoning goes out as a thinking budget (request_encoder.cc).
  const std::string_view effort =
      same && req.reasoning ? std::string_view(req.reasoning->effort) : std::string_view();
  return write_format_container(
      w, req, same, "output_config", kOutputConfigPrefix, schema || !effort.empty(),
      [&](JsonWriter& w) -> Status {
        if (!effort.empty()) w.field("effort", effort);
        if (!schema) return Status::Ok();
        const auto& rf = *req.response_format;
        warn_format_losses(rf, "Anthropic", path, warnings, /*has_description=*/false);
        TW_ASSIGN(std::string_view text,
                  checked_format_schema(rf, raw_verified, Path(path, "schema")));
        w.key("format");
        w.begin_object();
        w.field("type", "json_schema");
        w.field_raw("schema", text);
        w.end_object();
        return Status::Ok();
      });
}

template Status decode_output_config<ir::Owning>(std::string_view, json::element, const Path&,
                                                 ir::Request&);
template Status decode_output_config<Borrowed>(std::string_view, json::element, const Path&,
                                               ir::BasicRequest<Borrowed>&);
template Status write_output_config<ir::Owning>(JsonWriter&, const ir::Request&, bool, bool,
                                                Warnings&);
template Status write_output_config<Borrowed>(JsonWriter&, const ir::BasicRequest<Borrowed>&, bool,
                                              bool, Warnings&);

}  // namespace toolwire::dialects::anthropic_messages
