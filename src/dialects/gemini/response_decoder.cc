// Gemini GenerateContentResponse JSON → IR response (candidates[0]).
#include "dialects/common/rfc3339.h"
#include "dialects/gemini/wire.h"

namespace toolwire::dialects::gemini {

using json::Path;

namespace {

// A prompt blocked before any candidate: {"promptFeedback":{"blockReason":...}}.
Result<std::string_view> block_reason(json::element feedback, const Path& path) {
  TW_ASSIGN(json::object obj, json::as_object(feedback, path));
  enum { kBlockReason };
  static constexpr std::string_view kKeys[] = {"blockReason"};
  const auto f = pick(obj, kKeys);
  if (!f.has[kBlockReason]) return std::string_view();
  const Path p(path, "blockReason");
  return json::as_string(f.e[kBlockReason], p);
}

}  // namespace

Result<ir::Response> decode_response(std::string_view body, Warnings& warnings) {
  thread_local simdjson::dom::parser parser;
  TW_ASSIGN(json::element root, json::parse(parser, body));
  const Path path;
  if (root.is_array()) {  // streamGenerateContent without alt=sse answers a list
    return json::invalid(path,
                         "expected one GenerateContentResponse object, got an array (a "
                         "streamGenerateContent answer without alt=sse?)");
  }
  TW_ASSIGN(json::object obj, json::as_object(root, path));
  ir::Response resp;
  resp.source_dialect = kDialect;
  std::string_view finish, blocked;
  json::element candidate;
  bool has_candidate = false;
  std::string scratch;
  for (auto field : obj) {
    const std::string_view key = camel_key(field.key, scratch);
    const json::element value = field.value;
    const Path fpath(path, field.key);
    if (key == "error") return decode_error(0, body);
    if (key == "candidates") {
      if (value.is_null()) continue;
      TW_ASSIGN(json::array cands, json::as_array(value, fpath));
      if (cands.size() > 1)
        warn(warnings, "dropped_extra_candidates", fpath,
             "only candidates[0] is used; " + std::to_string(cands.size() - 1) + " dropped");
      for (json::element c : cands) {
        candidate = c;
        has_candidate = true;
        break;
      }
    } else if (key == "usageMetadata") {
      if (!value.is_null()) TW_TRY(decode_usage(value, fpath, resp.usage));
    } else if (key == "modelVersion") {
      TW_ASSIGN(std::string_view model, json::as_string(value, fpath));
      resp.model.assign(model);
    } else if (key == "responseId") {
      TW_ASSIGN(std::string_view id, json::as_string(value, fpath));
      resp.id.assign(id);
    } else if (auto t = key == "createTime" && value.is_string()
                            ? parse_rfc3339(value.get_string().value_unsafe())
                            : std::nullopt) {
      resp.created = *t;  // (written back to the second: its fraction is not kept)
    } else {
      if (key == "promptFeedback" && !value.is_null()) {
        TW_ASSIGN(blocked, block_reason(value, fpath));
      }
      resp.extra.push_back(ir::ExtraField{std::string(field.key), json::compact(value)});
    }
  }
  if (has_candidate) {
    const Path cands_path(path, "candidates");
    const Path cpath(cands_path, size_t{0});
    TW_ASSIGN(json::object cobj, json::as_object(candidate, cpath));
    size_t ordinal = 0;
    for (auto field : cobj) {
      const std::string_view key = camel_key(field.key, scratch);
      const Path fpath(cpath, field.key);
      if (key == "content") {
        if (field.value.is_null()) continue;
        TW_ASSIGN(json::object content, json::as_object(field.value, fpath));
        json::element parts;
        if (!json::get(content, "parts", parts)) continue;
        TW_TRY(for_each_entry(
            parts, Path(fpath, "parts"), [&](json::element p, const Path& pp) -> Status {
              return decode_model_part<ir::Owning>(p, pp, resp.id, ordinal, resp.parts);
            }));
      } else if (key == "finishReason") {
        if (!field.value.is_null()) {
          TW_ASSIGN(finish, json::as_string(field.value, fpath));
        }
      } else if (key == "index") {
        // always 0 here
      } else {  // safetyRatings, citationMetadata, finishMessage, avgLogprobs, ...
        resp.extra.push_back(ir::ExtraField{std::string(kCandidatePrefix) + std::string(field.key),
                                            json::compact(field.value)});
      }
    }
  } else if (blocked.empty()) {
    return json::invalid(path, "the response has no candidates and no promptFeedback.blockReason");
  }
  if (!has_candidate && !blocked.empty()) {
    resp.finish = {ir::FinishReason::Kind::content_filter, std::string(blocked)};
    return resp;
  }
  resp.finish = decode_finish_reason(finish, ir::has_tool_calls(resp.parts));
  return resp;
}

}  // namespace toolwire::dialects::gemini
