// IR response → Bedrock Converse response JSON.
#include "dialects/bedrock_converse/wire.h"
#include "dialects/common/request_object.h"
#include "dialects/common/response_object.h"

namespace toolwire::dialects::bedrock_converse {

using json::Path;

Result<std::string> encode_response(const ir::Response& resp, Warnings& warnings) {
  const bool same = resp.source_dialect == kDialect;
  const Path root;
  return write_json_object(512, [&](JsonWriter& w) -> Status {
    w.key("output");
    w.begin_object();
    w.key("message");
    w.begin_object();
    w.field("role", "assistant");
    w.key("content");
    w.begin_array();
    const Path output_path(root, "output");  // a Path keeps its parent's address
    const Path message_path(output_path, "message");
    const Path content_path(message_path, "content");
    for (size_t i = 0; i < resp.parts.size(); ++i)
      encode_assistant_part(resp.parts[i], /*raw_verified=*/false, Path(content_path, i), w,
                            warnings);
    w.end_array();
    w.end_object();
    w.end_object();
    w.field("stopReason", encode_stop_reason(resp.finish, ir::has_tool_calls(resp.parts)));
    w.key("usage");
    w.begin_object();
    encode_usage(resp.usage, w);
    w.end_object();
    bool has_metrics = false;
    for (const auto& e : resp.extra) has_metrics |= same && e.key == "metrics";
    write_response_extras(w, resp, same, "Bedrock", warnings);
    // Required by the API's shape; toolwire did not time the upstream call. (A
    // Bedrock response without it passes through as it came.)
    if (!has_metrics && !same) w.field_raw("metrics", R"({"latencyMs":0})");
    if (!resp.id.empty() || !resp.model.empty())
      warn(warnings, "dropped_response_id", Path(root, "id"),
           "Bedrock responses carry no id or model; they were dropped");
    return Status::Ok();
  });
}

}  // namespace toolwire::dialects::bedrock_converse
