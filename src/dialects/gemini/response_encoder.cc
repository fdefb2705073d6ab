// IR response → Gemini GenerateContentResponse JSON.
#include "dialects/common/request_object.h"
#include "dialects/common/response_object.h"
#include "dialects/common/rfc3339.h"
#include "dialects/gemini/wire.h"

namespace toolwire::dialects::gemini {

using json::Path;

Result<std::string> encode_response(const ir::Response& resp, Warnings& warnings) {
  const bool same = resp.source_dialect == kDialect;
  const Path root;
  return write_json_object(512, [&](JsonWriter& w) -> Status {
    const bool calls = ir::has_tool_calls(resp.parts);
    const bool blocked = resp.parts.empty() &&
                         resp.finish.kind == ir::FinishReason::Kind::content_filter && same &&
                         !resp.extra.empty() && [&] {
                           for (const auto& e : resp.extra)
                             if (e.key == "promptFeedback") return true;
                           return false;
                         }();
    if (!blocked) {
      TW_TRY(write_candidate(
          w,
          [&](JsonWriter& w) -> Status {
            auto written = write_model_parts<ir::Owning>(resp.parts, true, /*in_request=*/false,
                                                         false, Path(root, "content"), w, warnings);
            if (!written) return written.error();
            return Status::Ok();
          },
          [&](JsonWriter& w) -> Status {
            w.field("finishReason", encode_finish_reason(resp.finish, calls));
            w.field("index", 0);
            if (same)
              for (const auto& e : resp.extra)
                if (e.key.starts_with(kCandidatePrefix))
                  w.field_raw(std::string_view(e.key).substr(kCandidatePrefix.size()), e.raw_json);
            return Status::Ok();
          }));
    }
    write_usage(w, resp.usage);
    if (resp.usage.cache_write_tokens)
      warn(warnings, "dropped_cache_write_tokens", Path(root, "usage"),
           "Gemini usage has no count of tokens written to a cache");
    if (!resp.model.empty()) w.field("modelVersion", resp.model);
    if (!resp.id.empty()) w.field("responseId", resp.id);
    if (resp.created) w.field("createTime", format_rfc3339(resp.created));
    // Candidate extras went into the candidate.
    write_response_extras(w, resp, same, "Gemini", warnings, [&](const ir::ExtraField& e) {
      return same && e.key.starts_with(kCandidatePrefix);
    });
    return Status::Ok();
  });
}

}  // namespace toolwire::dialects::gemini
