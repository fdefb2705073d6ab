// Gemini streamGenerateContent?alt=sse bytes (any chunking) → IR stream events.
//
// Every `data:` event is a whole GenerateContentResponse: text and thought
// parts are deltas, a functionCall arrives whole (start, arguments and end at
// once). The chunk with a finishReason ends the message.
//
// Fast path: most of a stream is chunks of one text part whose bytes around
// the text repeat exactly (same envelope, same usage). After the full path
// decodes such a chunk, its bytes before and after the text are kept; a
// later chunk with exactly those bytes around a text without escapes is a
// TextDelta, decoded without a DOM. Anything else takes the full path.
#include <algorithm>

#include "dialects/common/dom_json.h"
#include "dialects/common/literal_match.h"
#include "dialects/common/rfc3339.h"
#include "dialects/common/stream_decoder_base.h"
#include "dialects/gemini/wire.h"
#include "toolwire/dialects/framing/sse.h"

namespace toolwire::dialects::gemini {
namespace {

using json::Path;

class Decoder final : public StreamDecoderBase<Decoder, SseParser, SseSink> {
 public:
  static constexpr bool kKeepsError = false;
  static constexpr bool kIgnoresAfterDone = false;
  Error ended_early() const {
    return make_error(ErrorCode::parse_error,
                      framing_.has_partial_event()
                          ? "stream ended inside an event, before a finishReason"
                          : "stream ended before a chunk with a finishReason");
  }

 private:
  Status on_event(SseEvent& ev) override {
    if (done_ || ev.data.empty()) return Status::Ok();  // after the finish / error: ignored
    if (fast_text(ev.data, *out_)) {
      ++chunk_;
      return Status::Ok();
    }
    const size_t events_before = out_->size();
    ev.data.reserve(ev.data.size() + simdjson::SIMDJSON_PADDING);
    json::element root;
    if (parser_.parse(ev.data.data(), ev.data.size(), false).get(root)) {
      Error e = json::parse(parser_, ev.data).error();
      e.message = "in chunk " + std::to_string(chunk_) + ": " + e.message;
      return e;
    }
    Status st = chunk(root, *out_);
    if (!st) {
      Error e = st.error();
      e.message = "in chunk " + std::to_string(chunk_) + ": " + e.message;
      return e;
    }
    learn_template(ev.data, events_before);
    ++chunk_;
    return Status::Ok();
  }

  bool fast_text(std::string_view d, std::vector<ir::StreamEvent>& out) {
    if (prefix_.empty() || d.size() < prefix_.size() + suffix_.size() || !d.starts_with(prefix_) ||
        !d.ends_with(suffix_))
      return false;
    const std::string_view text =
        d.substr(prefix_.size(), d.size() - prefix_.size() - suffix_.size());
    if (!json::plain_string_body(text)) return false;
    if (!text.empty()) out.push_back(ir::TextDelta{std::string(text)});
    return true;
  }

  // A chunk the full path decoded to one TextDelta (its usage unchanged or
  // not given, no finish): its bytes around the text become the template.
  void learn_template(std::string_view d, size_t events_before) {
    prefix_.clear();
    suffix_.clear();
    if (done_ || out_->size() != events_before + 1) return;
    const auto* delta = std::get_if<ir::TextDelta>(&out_->back());
    if (!delta || delta->text.empty()) return;
    constexpr std::string_view kKey = "\"text\"";
    const size_t key = d.find(kKey);
    if (key == std::string_view::npos || d.find(kKey, key + 1) != std::string_view::npos) return;
    size_t i = key + kKey.size();
    while (i < d.size() && (d[i] == ' ' || d[i] == ':')) ++i;
    if (i >= d.size() || d[i] != '"') return;
    ++i;
    if (d.substr(i, delta->text.size()) != delta->text) return;
    const size_t end = i + delta->text.size();
    if (end >= d.size() || d[end] != '"') return;  // an escape: the source differs from the text
    prefix_.assign(d.substr(0, i));
    suffix_.assign(d.substr(end));
  }

  Status chunk(json::element root, std::vector<ir::StreamEvent>& out) {
    const Path path;
    TW_ASSIGN(json::object obj, json::as_object(root, path));
    enum { kCandidates, kUsage, kModel, kResponseId, kPromptFeedback, kError, kCreateTime };
    static constexpr std::string_view kKeys[] = {"candidates", "usageMetadata",  "modelVersion",
                                                 "responseId", "promptFeedback", "error",
                                                 "createTime"};
    const auto f = pick(obj, kKeys);
    if (f.has[kError]) return on_error(f.e[kError], Path(path, "error"), out);
    if (obj.size() > static_cast<size_t>(f.present[kCandidates] + f.present[kUsage] +
                                         f.present[kModel] + f.present[kResponseId] +
                                         f.present[kPromptFeedback] + f.present[kCreateTime]))
        [[unlikely]]
      note_other_members(obj, kKeys, "$.", "the stream drops it");
    if (!started_) {
      ir::MessageStart start;
      if (f.has[kResponseId]) {
        TW_ASSIGN(std::string_view id, json::as_string(f.e[kResponseId], Path(path, "responseId")));
        start.id.assign(id);
      }
      if (f.has[kModel]) {
        TW_ASSIGN(std::string_view model, json::as_string(f.e[kModel], Path(path, "modelVersion")));
        start.model.assign(model);
      }
      if (f.has[kCreateTime]) {
        auto t = f.e[kCreateTime].is_string()
                     ? parse_rfc3339(f.e[kCreateTime].get_string().value_unsafe())
                     : std::nullopt;
        if (t)
          start.created = *t;
        else
          note("dropped_unknown_field", "$.createTime", "not an RFC 3339 date-time; dropped");
      }
      salt_ = start.id;
      out.push_back(std::move(start));
      started_ = true;
    }
    std::string_view finish;
    bool has_candidate = false;
    if (f.has[kCandidates]) {
      const Path cpath(path, "candidates");
      TW_ASSIGN(json::array cands, json::as_array(f.e[kCandidates], cpath));
      for (json::element c : cands) {
        has_candidate = true;
        TW_TRY(candidate(c, Path(cpath, size_t{0}), finish, out));
        break;  // candidates[0] only
      }
      if (cands.size() > 1) [[unlikely]]
        note("dropped_extra_candidates", "$.candidates", "only candidates[0] is used");
    }
    if (f.has[kUsage]) {
      ir::Usage usage;
      TW_TRY(decode_usage(f.e[kUsage], Path(path, "usageMetadata"), usage));
      if (!usage.empty() && usage != usage_) {
        usage_ = usage;
        out.push_back(ir::UsageEvent{usage});
      }
    }
    if (!has_candidate && f.has[kPromptFeedback]) {
      const Path p(path, "promptFeedback");
      TW_ASSIGN(json::object fb, json::as_object(f.e[kPromptFeedback], p));
      json::element reason;
      if (json::get(fb, "blockReason", reason)) {
        TW_ASSIGN(std::string_view r, json::as_string(reason, Path(p, "blockReason")));
        out.push_back(ir::Finish{{ir::FinishReason::Kind::content_filter, std::string(r)}});
        done_ = true;
        return Status::Ok();
      }
    }
    if (f.has[kPromptFeedback])  // safetyRatings...: the whole response keeps the object
      note("dropped_unknown_field", "$.promptFeedback",
           "field 'promptFeedback' has no stream event; the stream drops it");
    if (!finish.empty()) {
      ir::Finish fin{decode_finish_reason(finish, next_tool_ > 0)};
      if (!candidate_extra_.empty()) [[unlikely]]
        fin.extras = {std::move(candidate_extra_), std::string(kDialect)};
      out.push_back(std::move(fin));
      done_ = true;
    }
    return Status::Ok();
  }

  Status candidate(json::element c, const Path& path, std::string_view& finish,
                   std::vector<ir::StreamEvent>& out) {
    TW_ASSIGN(json::object obj, json::as_object(c, path));
    enum { kContent, kFinishReason, kIndex };
    static constexpr std::string_view kKeys[] = {"content", "finishReason", "index"};
    const auto f = pick(obj, kKeys);
    // safetyRatings, citationMetadata, groundingMetadata, finishMessage,
    // logprobsResult...: kept as the whole response keeps them, the last
    // value of each, on the Finish (a `gemini` stream writes them back into
    // its last candidate).
    if (obj.size() > static_cast<size_t>(f.present[kContent] + f.present[kFinishReason] +
                                         f.present[kIndex])) [[unlikely]]
      keep_candidate_members(obj, kKeys);
    if (f.has[kContent]) {
      const Path content_path(path, "content");
      TW_ASSIGN(json::object content, json::as_object(f.e[kContent], content_path));
      json::element parts;
      if (json::get(content, "parts", parts))
        TW_TRY(for_each_entry(
            parts, Path(content_path, "parts"),
            [&](json::element p, const Path& pp) -> Status { return part(p, pp, out); }));
    }
    if (f.has[kFinishReason]) {
      const Path p(path, "finishReason");
      TW_ASSIGN(finish, json::as_string(f.e[kFinishReason], p));
    }
    return Status::Ok();
  }

  Status part(json::element p, const Path& path, std::vector<ir::StreamEvent>& out) {
    parts_.clear();
    size_t ordinal = static_cast<size_t>(next_tool_);
    TW_TRY(decode_model_part<ir::Owning>(p, path, salt_, ordinal, parts_));
    for (auto& part : parts_) {
      if (auto* t = std::get_if<ir::TextPart>(&part)) {
        out.push_back(ir::TextDelta{std::move(t->text)});
      } else if (auto* t = std::get_if<ir::ThinkingPart>(&part)) {
        ir::ThinkingDelta d;
        d.text = std::move(t->text);
        d.signature = std::move(t->signature);
        if (!d.text.empty() || !d.signature.empty()) out.push_back(std::move(d));
      } else if (auto* c = std::get_if<ir::ToolCallPart>(&part)) {
        const int index = next_tool_++;
        out.push_back(ir::ToolCallStart{index, std::move(c->id), std::move(c->name),
                                        std::move(c->signature)});
        out.push_back(ir::ToolCallDelta{index, std::move(c->arguments)});
        out.push_back(ir::ToolCallEnd{index});
      } else if (auto* u = std::get_if<ir::UnknownPart>(&part)) {
        // inlineData, executableCode...: not in the stream vocabulary.
        note("dropped_unknown_part", path.str(),
             "a '" + u->type + "' part has no stream event; the stream drops it");
      }
    }
    return Status::Ok();
  }

  template <size_t N>
  void keep_candidate_members(json::object obj, const std::string_view (&known)[N]) {
    for (auto [key, value] : obj) {
      if (value.is_null() || std::find(std::begin(known), std::end(known), key) != std::end(known))
        continue;
      std::string name = std::string(kCandidatePrefix) + std::string(key);
      std::erase_if(candidate_extra_, [&](const ir::ExtraField& e) { return e.key == name; });
      candidate_extra_.push_back(ir::ExtraField{std::move(name), json::compact(value)});
    }
  }

  // Each member of `obj` not in `known` (and not null), at `prefix` + its key.
  template <size_t N>
  void note_other_members(json::object obj, const std::string_view (&known)[N],
                          std::string_view prefix, std::string_view why) {
    for (auto [key, value] : obj) {
      if (value.is_null() || std::find(std::begin(known), std::end(known), key) != std::end(known))
        continue;
      note("dropped_unknown_field", std::string(prefix) + std::string(key),
           "field '" + std::string(key) + "' has no stream event; " + std::string(why));
    }
  }

  Status on_error(json::element e, const Path& path, std::vector<ir::StreamEvent>& out) {
    TW_ASSIGN(json::object err, json::as_object(e, path));
    ir::ErrorEvent event;
    json::element el;
    if (json::get(err, "status", el)) {
      TW_ASSIGN(std::string_view status, json::as_string(el, Path(path, "status")));
      event.type.assign(status);
    }
    if (json::get(err, "message", el)) {
      TW_ASSIGN(std::string_view message, json::as_string(el, Path(path, "message")));
      event.message.assign(message);
    }
    out.push_back(std::move(event));
    done_ = true;
    return Status::Ok();
  }

  simdjson::dom::parser parser_;
  std::vector<ir::Part> parts_;  // one part's IR, reused
  std::string salt_;             // the response id: seeds synthesized call ids
  std::string prefix_, suffix_;  // the fast path's template; empty: none yet
  ir::Usage usage_;
  std::vector<ir::ExtraField> candidate_extra_;  // the candidate's other members, for the Finish
  size_t chunk_ = 0;
  int next_tool_ = 0;
  bool started_ = false;
};

}  // namespace

std::unique_ptr<StreamDecoder> make_stream_decoder() { return std::make_unique<Decoder>(); }

}  // namespace toolwire::dialects::gemini
