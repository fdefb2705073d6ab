// Responses `text.format` (structured_output.h).
#include "dialects/openai_responses/structured_output.h"

#include "dialects/common/response_format.h"

namespace toolwire::dialects::openai_responses {

using json::Path;
using Kind = ir::ResponseFormatKind;

namespace {

// False (and nothing set) for a type this dialect does not know.
template <class S>
Result<bool> decode_format(json::element value, const Path& path, ir::BasicRequest<S>& req) {
  TW_ASSIGN(json::object obj, json::as_object(value, path));
  json::element type_e;
  const Path tp(path, "type");
  if (!json::get(obj, "type", type_e)) return json::invalid(tp, "missing format type");
  TW_ASSIGN(std::string_view type, json::as_string(type_e, tp));
  ir::BasicResponseFormat<S> rf;
  if (type == "text")
    rf.kind = Kind::text;
  else if (type == "json_object")
    rf.kind = Kind::json_object;
  else if (type == "json_schema")
    TW_TRY(decode_schema_members(obj, path, rf));
  else
    return false;
  req.response_format = std::move(rf);
  return true;
}

}  // namespace

template <class S>
Status decode_text_config(json::element value, const Path& path, ir::BasicRequest<S>& req) {
  return decode_format_container(
      value, path, "format", kTextPrefix, req,
      [&](json::element v, const Path& p) { return decode_format(v, p, req); },
      [&](std::string_view member, json::element v, const Path& p) -> Result<bool> {
        if (member != "verbosity" || v.is_null()) return false;
        TW_ASSIGN(std::string_view verbosity, json::as_string(v, p));
        req.verbosity = IrText<S>::keep(verbosity);
        return true;
      });
}

template <class S>
Status write_text_config(JsonWriter& w, const ir::BasicRequest<S>& req, bool same,
                         bool raw_verified) {
  const Path root, text(root, "text"), path(text, "format");  // (a Path points at its parent)
  const bool verbosity = !std::string_view(req.verbosity).empty();
  return write_format_container(w, req, same, "text", kTextPrefix,
                                req.response_format.has_value() || verbosity,
                                [&](JsonWriter& w) -> Status {
                                  if (req.response_format) {
                                    w.key("format");
                                    w.begin_object();
                                    TW_TRY(write_openai_format(w, *req.response_format, "",
                                                               raw_verified, Path(path, "schema")));
                                    w.end_object();
                                  }
                                  if (verbosity) w.field("verbosity", req.verbosity);
                                  return Status::Ok();
                                });
}

template Status decode_text_config<ir::Owning>(json::element, const Path&, ir::Request&);
template Status decode_text_config<Borrowed>(json::element, const Path&,
                                             ir::BasicRequest<Borrowed>&);
template Status write_text_config<ir::Owning>(JsonWriter&, const ir::Request&, bool, bool);
template Status write_text_config<Borrowed>(JsonWriter&, const ir::BasicRequest<Borrowed>&, bool,
                                            bool);

}  // namespace toolwire::dialects::openai_responses
