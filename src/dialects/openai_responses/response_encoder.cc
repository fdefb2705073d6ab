// IR response → OpenAI Responses `response` object.
#include "dialects/common/openai_usage.h"
#include "dialects/common/request_object.h"
#include "dialects/common/response_object.h"
#include "dialects/openai_responses/wire.h"

namespace toolwire::dialects::openai_responses {

// The part of a response id after its "resp_" prefix: generated item ids
// ("msg_<base>_0") name the response they belong to.
std::string_view id_base(std::string_view response_id) {
  if (response_id.starts_with("resp_")) response_id.remove_prefix(5);
  return response_id;
}

Result<std::string> encode_response(const ir::Response& resp, Warnings& warnings) {
  const bool same = resp.source_dialect == kDialect;
  bool error_extra = false;
  for (const auto& x : resp.extra) error_extra |= same && x.key == "error";
  const WireStatus st = encode_status(resp.finish);

  return write_json_object(512, [&](JsonWriter& w) -> Status {
    w.field("id", resp.id);
    w.field("object", "response");
    w.field("created_at", resp.created);
    w.field("status", st.status);
    if (!error_extra) {
      if (st.status == "failed") {
        w.key("error");
        w.begin_object();
        w.field("code", "server_error");
        w.field("message", resp.finish.raw);
        w.end_object();
      } else {
        w.field_null("error");
      }
    }
    if (st.incomplete_reason.empty()) {
      w.field_null("incomplete_details");
    } else {
      w.key("incomplete_details");
      w.begin_object();
      w.field("reason", st.incomplete_reason);
      w.end_object();
    }
    w.field("model", resp.model);
    w.key("output");
    w.begin_array();
    size_t next = 0;
    const ItemStyle style{true, id_base(resp.id), "$.output"};
    write_model_items<ir::Owning>(w, resp.parts, style, next, warnings);
    w.end_array();
    write_usage(w, resp.usage);
    warn_dropped_cache_write(resp.usage, "$.usage", warnings);
    write_response_extras(w, resp, same, "OpenAI Responses", warnings);
    return Status::Ok();
  });
}

}  // namespace toolwire::dialects::openai_responses
