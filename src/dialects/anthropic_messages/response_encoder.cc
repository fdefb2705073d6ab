// IR response → Anthropic Messages response JSON.
#include <atomic>

#include "dialects/anthropic_messages/wire.h"
#include "dialects/common/request_object.h"
#include "dialects/common/response_object.h"

namespace toolwire::dialects::anthropic_messages {

using json::Path;

std::string synthesize_message_id() {
  static std::atomic<uint64_t> counter{0};
  return "msg_toolwire_" + std::to_string(++counter);
}

Result<std::string> encode_response(const ir::Response& resp, Warnings& warnings) {
  const bool same = resp.source_dialect == kDialect;
  const Path root;
  std::vector<PlacedMember> placed_members;  // citations, usage details: placed_member.h
  if (same) placed_members = collect_placed(resp.extra);
  std::vector<PlacedMember>* placed = placed_members.empty() ? nullptr : &placed_members;
  return write_json_object(512, [&](JsonWriter& w) -> Status {
    if (resp.id.empty()) {
      w.field("id", synthesize_message_id());
      warn(warnings, "synthesized_id", Path(root, "id"),
           "the response had no id; one was generated");
    } else {
      w.field("id", resp.id);
    }
    w.field("type", "message");
    w.field("role", "assistant");
    w.field("model", resp.model);
    w.key("content");
    w.begin_array();
    const Path content_path(root, "content");
    for (size_t i = 0; i < resp.parts.size(); ++i) {
      const Path ppath(content_path, i);
      encode_assistant_part(resp.parts[i], /*in_request=*/false, /*raw_verified=*/false, ppath, w,
                            warnings, PlaceAt{placed, kPlacedPart, 0, i});
    }
    w.end_array();
    w.field("stop_reason", encode_stop_reason(resp.finish, ir::has_tool_calls(resp.parts)));
    const ir::ExtraField* stop_sequence = nullptr;
    if (same)
      for (const auto& e : resp.extra)
        if (e.key == "stop_sequence") stop_sequence = &e;
    if (stop_sequence)
      w.field_raw("stop_sequence", stop_sequence->raw_json);
    else
      w.field_null("stop_sequence");
    w.key("usage");
    w.begin_object();
    write_input_usage(resp.usage, w);
    w.field("output_tokens", resp.usage.output_tokens.value_or(0));
    if (placed) write_placed_in(*placed, "$.usage", w);
    w.end_object();
    write_response_extras(w, resp, same, "Anthropic", warnings,
                          [&](const ir::ExtraField& e) { return &e == stop_sequence; });
    if (placed) [[unlikely]]
      for (const PlacedMember& m : *placed)
        if (!m.written)  // its block is gone
          warn(warnings, "dropped_unknown_field", std::string(m.path),
               "field '" + std::string(m.name) + "' lost the block it came with");
    return Status::Ok();
  });
}

}  // namespace toolwire::dialects::anthropic_messages
