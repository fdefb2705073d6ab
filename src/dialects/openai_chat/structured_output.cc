// Chat Completions `response_format` (structured_output.h).
#include "dialects/openai_chat/structured_output.h"

#include "dialects/common/response_format.h"

namespace toolwire::dialects::openai_chat {

using json::Path;
using Kind = ir::ResponseFormatKind;

template <class S>
Status decode_response_format(json::element value, const Path& path, ir::BasicRequest<S>& req) {
  TW_ASSIGN(json::object obj, json::as_object(value, path));
  enum { kType, kJsonSchema };
  static constexpr std::string_view kKeys[] = {"type", "json_schema"};
  const auto f = json::pick(obj, kKeys);
  const Path tp(path, "type");
  if (!f.has[kType]) return json::invalid(tp, "missing response_format type");
  TW_ASSIGN(std::string_view type, json::as_string(f.e[kType], tp));
  ir::BasicResponseFormat<S> rf;
  if (type == "text") {
    rf.kind = Kind::text;
  } else if (type == "json_object") {
    rf.kind = Kind::json_object;
  } else if (type == "json_schema") {
    const Path sp(path, "json_schema");
    if (!f.has[kJsonSchema]) return json::invalid(sp, "missing json_schema");
    TW_ASSIGN(json::object schema, json::as_object(f.e[kJsonSchema], sp));
    TW_TRY(decode_schema_members(schema, sp, rf));
  } else {  // a type this version does not know: passed through for Chat only
    req.extra.push_back(ir::BasicExtraField<S>{"response_format", IrText<S>::raw_json(value)});
    return Status::Ok();
  }
  req.response_format = std::move(rf);
  return Status::Ok();
}

template <class S>
Status write_response_format(JsonWriter& w, const ir::BasicRequest<S>& req, bool raw_verified) {
  if (!req.response_format) return Status::Ok();
  const auto& rf = *req.response_format;
  const Path root, path(root, "response_format");
  const Path sp(path, "json_schema");
  w.key("response_format");
  w.begin_object();
  TW_TRY(write_openai_format(w, rf, "json_schema", raw_verified, Path(sp, "schema")));
  w.end_object();
  return Status::Ok();
}

template Status decode_response_format<ir::Owning>(json::element, const Path&, ir::Request&);
template Status decode_response_format<Borrowed>(json::element, const Path&,
                                                 ir::BasicRequest<Borrowed>&);
template Status write_response_format<ir::Owning>(JsonWriter&, const ir::Request&, bool);
template Status write_response_format<Borrowed>(JsonWriter&, const ir::BasicRequest<Borrowed>&,
                                                bool);

}  // namespace toolwire::dialects::openai_chat
