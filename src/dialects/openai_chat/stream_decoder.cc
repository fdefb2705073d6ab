// OpenAI Chat Completions SSE (`data: {chunk}` ... `data: [DONE]`) → IR events.
//
// Each SSE event is parsed once and its deltas forwarded at once: argument
// fragments are never buffered, so parallel calls whose deltas interleave keep
// their own `index`.
#include <algorithm>

#include "dialects/common/literal_match.h"
#include "dialects/common/source_text.h"
#include "dialects/common/stream_decoder_base.h"
#include "dialects/openai_chat/wire.h"
#include "toolwire/dialects/framing/sse.h"

namespace toolwire::dialects::openai_chat {
namespace {

using json::Path;

// Bounds the per-index state a hostile stream can make us allocate.
constexpr int64_t kMaxToolCalls = 4096;

class Decoder final : public StreamDecoderBase<Decoder, SseParser, SseSink> {
 public:
  static constexpr bool kKeepsError = true;
  static constexpr bool kIgnoresAfterDone = true;  // after the terminal event
  Error ended_early() const {
    return make_error(ErrorCode::parse_error, framing_.has_partial_event()
                                                  ? "stream ended inside an event, before [DONE]"
                                                  : "stream ended before [DONE]");
  }

 private:
  // SseSink: each event as it completes (the parser's reused buffer).
  Status on_event(SseEvent& ev) override {
    if (done_) return Status::Ok();
    ++event_no_;
    if (ev.event != "error" && fast_chunk(ev.data, *out_)) return Status::Ok();
    return on_event(ev, *out_);
  }

  // ---- the fast path ----
  // Every chunk of a stream repeats one envelope around its delta:
  //   {"id":..,"object":..,"created":..,"model":..,"choices":[{"index":0,"delta":  DELTA
  //   ,"logprobs":null,"finish_reason":null}]}
  // (in any key order).
  // Once a chunk decoded by the full path shows that shape (learn_envelope),
  // its bytes before and after DELTA are kept. A later chunk with exactly
  // those bytes around a delta the fast matchers below recognise (one text or
  // argument fragment without escapes) is decoded without building a DOM: the
  // envelope is byte for byte one already validated and decoded, and
  // replacing one JSON value by another keeps the document valid. Anything
  // else takes the full path.
  bool fast_chunk(std::string_view d, std::vector<ir::StreamEvent>& out) {
    if (head_.empty() || d.size() <= head_.size() + tail_.size() || !d.starts_with(head_) ||
        !d.ends_with(tail_))
      return false;
    const std::string_view delta = d.substr(head_.size(), d.size() - head_.size() - tail_.size());
    std::string_view text;
    if (match_string_field(delta, R"({"content":")", "\"}", text)) {
      if (!text.empty()) out.push_back(ir::TextDelta{std::string(text)});
      return true;
    }
    if (match_string_field(delta, R"({"reasoning_content":")", "\"}", text)) {
      if (!text.empty()) out.push_back(ir::ThinkingDelta{std::string(text), {}, false});
      return true;
    }
    constexpr std::string_view kCallHead = R"({"tool_calls":[{"index":)";
    if (!delta.starts_with(kCallHead)) return false;
    size_t i = kCallHead.size();
    int64_t index;
    if (!json::small_index(delta, i, 4, index)) return false;
    if (index >= static_cast<int64_t>(calls_.size()) || !calls_[index])
      return false;  // a start: full path
    if (!match_string_field(delta.substr(i), R"(,"function":{"arguments":")", "\"}}]}", text))
      return false;  // OpenAI's order
    last_index_ = index;
    if (!text.empty()) out.push_back(ir::ToolCallDelta{static_cast<int>(index), std::string(text)});
    return true;
  }

  // `s` is head + a JSON string body without escapes + tail; the body goes to `text`.
  static bool match_string_field(std::string_view s, std::string_view head, std::string_view tail,
                                 std::string_view& text) {
    if (s.size() < head.size() + tail.size() || !s.starts_with(head) || !s.ends_with(tail))
      return false;
    text = s.substr(head.size(), s.size() - head.size() - tail.size());
    return json::plain_string_body(text);
  }

  // Called after the full path decoded `root` (the chunk `data`): keeps the
  // bytes around choices[0].delta when the chunk has the plain shape above.
  void learn_envelope(json::object root, std::string_view data) {
    if (!head_.empty()) return;
    static constexpr std::string_view kEnvelopeKeys[] = {
        "id", "object", "created", "model", "system_fingerprint", "service_tier"};
    // Key order does not matter; each key at most once, nothing the full
    // path would act on besides choices[0].delta.
    json::element choices;
    size_t n_choices = 0;
    for (auto [key, value] : root) {
      if (key == "choices") {
        choices = value;
        ++n_choices;
        continue;
      }
      bool known = false;
      for (auto k : kEnvelopeKeys) known |= key == k;
      if (!known) return;
    }
    if (n_choices != 1 || !choices.is_array()) return;
    json::array arr = choices.get_array().value_unsafe();
    if (arr.size() != 1) return;
    json::element choice = arr.at(0).value_unsafe();
    if (!choice.is_object()) return;
    json::element delta;
    int seen_index = 0, seen_delta = 0, seen_logprobs = 0, seen_finish = 0;
    const json::object choice_obj =
        choice.get_object().value_unsafe();  // a local: the result is a temporary
    for (auto [key, value] : choice_obj) {
      if (key == "index" && value.is_int64() && value.get_int64().value_unsafe() == 0)
        ++seen_index;
      else if (key == "delta" && value.is_object())
        delta = value, ++seen_delta;
      else if (key == "logprobs" && value.is_null())
        ++seen_logprobs;
      else if (key == "finish_reason" && value.is_null())
        ++seen_finish;
      else
        return;
    }
    if (seen_delta != 1 || seen_index > 1 || seen_logprobs > 1 || seen_finish > 1) return;
    size_t begin, end;
    if (!json::source_range(delta, begin, end) || end > data.size()) return;
    head_.assign(data.substr(0, begin));
    tail_.assign(data.substr(end));
  }

  Status on_event(const SseEvent& ev, std::vector<ir::StreamEvent>& out) {
    if (ev.data == "[DONE]") {
      for (size_t i = 0; i < calls_.size(); ++i)
        if (calls_[i]) out.push_back(ir::ToolCallEnd{static_cast<int>(i)});
      out.push_back(ir::Finish{decode_finish_reason(finish_, started_calls_ > 0)});
      done_ = true;
      return Status::Ok();
    }
    auto root = json::parse(parser_, ev.data);
    if (!root) {
      Error e = std::move(root).error();
      e.message += " (SSE event " + std::to_string(event_no_) + ")";
      return e;
    }
    Path path;
    TW_ASSIGN(auto obj, json::as_object(*root, path));
    enum { kError, kId, kModel, kCreated, kChoices, kUsage };
    static constexpr std::string_view kKeys[] = {"error",   "id",      "model",
                                                 "created", "choices", "usage"};
    const auto f = pick(obj, kKeys);
    if (f.has[kError] || ev.event == "error")
      return on_error(f.e[kError], f.has[kError], *root, out);
    if (!started_) {
      ir::MessageStart start;
      keep_other_members(obj, start.extras);
      if (f.has[kId]) {
        TW_ASSIGN(auto s, json::as_string(f.e[kId], Path(path, "id")));
        start.id = std::string(s);
      }
      if (f.has[kModel]) {
        TW_ASSIGN(auto s, json::as_string(f.e[kModel], Path(path, "model")));
        start.model = std::string(s);
      }
      if (f.has[kCreated]) {
        TW_ASSIGN(auto n, json::as_int64(f.e[kCreated], Path(path, "created")));
        start.created = n;
      }
      out.push_back(std::move(start));
      started_ = true;
    } else {
      note_other_members(obj);
    }
    if (f.has[kChoices]) {
      Path cp(path, "choices");
      TW_ASSIGN(auto arr, json::as_array(f.e[kChoices], cp));
      size_t i = 0;
      for (json::element c : arr) TW_TRY(on_choice(c, Path(cp, i++), out));
    }
    if (f.has[kUsage]) {
      const Path up(path, "usage");
      TW_ASSIGN(auto u, decode_usage(f.e[kUsage], up));
      ir::UsageEvent usage{u};
      keep_usage_details(f.e[kUsage], up, usage.extras.extra);  // as the whole response
      if (!usage.extras.extra.empty()) [[unlikely]]
        usage.extras.dialect = kDialect;
      if (!u.empty() || !usage.extras.extra.empty()) out.push_back(std::move(usage));
    }
    learn_envelope(obj, ev.data);
    return Status::Ok();
  }

  // Chunk members no event field models (`system_fingerprint`,
  // `service_tier`...), as the whole response keeps them: the first chunk's
  // ride raw on the MessageStart (an `openai` stream writes them back into
  // every chunk), a member a later chunk adds has no event and is dropped,
  // said once. (Full path only: a chunk the fast path takes repeats an
  // envelope the full path saw.)
  static bool carried_member(std::string_view key) {
    static constexpr std::string_view kCarried[] = {"id",    "object",     "created",
                                                    "model", "choices",    "usage",
                                                    "error", "obfuscation"};  // padding, no content
    return std::find(std::begin(kCarried), std::end(kCarried), key) != std::end(kCarried);
  }

  void keep_other_members(json::object obj, ir::StreamExtras& extras) {
    for (auto [key, value] : obj) {
      if (value.is_null() || carried_member(key)) continue;
      extras.extra.push_back(ir::ExtraField{std::string(key), raw_json(value)});
      extras.dialect = kDialect;
    }
    for (const auto& e : extras.extra) kept_members_.push_back(e.key);
  }

  void note_other_members(json::object obj) {
    for (auto [key, value] : obj) {
      if (value.is_null() || carried_member(key) ||
          std::find(kept_members_.begin(), kept_members_.end(), key) != kept_members_.end())
        continue;
      note("dropped_unknown_field", Path(Path(), key).str(),
           "field '" + std::string(key) + "' has no stream event; the stream drops it");
    }
  }

  Status on_error(json::element err, bool has_err, json::element root,
                  std::vector<ir::StreamEvent>& out) {
    ir::ErrorEvent ev;
    json::element e;
    if (!has_err) {
      ev.message = raw_json(root);  // an `event: error` of another shape
    } else if (err.is_object()) {
      auto obj = err.get_object().value_unsafe();
      if (json::get(obj, "type", e) && e.is_string())
        ev.type = std::string(e.get_string().value_unsafe());
      if (json::get(obj, "message", e) && e.is_string())
        ev.message = std::string(e.get_string().value_unsafe());
    } else if (err.is_string()) {
      ev.message = std::string(err.get_string().value_unsafe());
    } else {
      ev.message = raw_json(err);
    }
    if (ev.type.empty()) ev.type = "server_error";
    out.push_back(std::move(ev));
    done_ = true;  // an error ends the stream: finish() succeeds
    return Status::Ok();
  }

  Status on_choice(json::element c, const Path& path, std::vector<ir::StreamEvent>& out) {
    TW_ASSIGN(auto obj, json::as_object(c, path));
    enum { kIndex, kDelta, kFinishReason, kLogprobs };
    static constexpr std::string_view kKeys[] = {"index", "delta", "finish_reason", "logprobs"};
    const auto f = pick(obj, kKeys);
    if (f.has[kIndex]) {
      TW_ASSIGN(auto n, json::as_int64(f.e[kIndex], Path(path, "index")));
      if (n != 0) {  // only choice 0 is translated (n > 1), as in the whole response
        note("dropped_extra_choices", "$.choices", "only choice 0 is translated");
        return Status::Ok();
      }
    }
    // The choice's logprobs go with its text (or refusal) delta, kept raw:
    // only an `openai` stream writes them back.
    std::string logprobs;
    if (f.has[kLogprobs] && !f.e[kLogprobs].is_null()) [[unlikely]] {
      TW_TRY(json::as_object(f.e[kLogprobs], Path(path, "logprobs")));
      logprobs = raw_json(f.e[kLogprobs]);
    }
    if (f.has[kDelta]) {
      Path dp(path, "delta");
      TW_ASSIGN(auto delta, json::as_object(f.e[kDelta], dp));
      enum { kDeltaReasoningContent, kDeltaContent, kDeltaToolCalls, kDeltaRefusal };
      static constexpr std::string_view kDeltaKeys[] = {"reasoning_content", "content",
                                                        "tool_calls", "refusal"};
      const auto d = pick(delta, kDeltaKeys);
      note_other_delta_members(delta);
      if (d.has[kDeltaReasoningContent]) {
        TW_ASSIGN(auto s,
                  json::as_string(d.e[kDeltaReasoningContent], Path(dp, "reasoning_content")));
        if (!s.empty()) out.push_back(ir::ThinkingDelta{std::string(s), {}, false});
      }
      if (d.has[kDeltaContent]) {
        TW_ASSIGN(auto s, json::as_string(d.e[kDeltaContent], Path(dp, "content")));
        if (!s.empty() || !logprobs.empty())
          out.push_back(text_delta(s, false, std::move(logprobs)));
      }
      if (d.has[kDeltaRefusal] && !d.e[kDeltaRefusal].is_null()) {
        TW_ASSIGN(auto s, json::as_string(d.e[kDeltaRefusal], Path(dp, "refusal")));
        if (!s.empty() || !logprobs.empty())
          out.push_back(text_delta(s, true, std::move(logprobs)));
      }
      if (d.has[kDeltaToolCalls]) {
        Path tp(dp, "tool_calls");
        TW_ASSIGN(auto arr, json::as_array(d.e[kDeltaToolCalls], tp));
        size_t i = 0;
        for (json::element call : arr) TW_TRY(on_tool_call(call, Path(tp, i++), out));
      }
    }
    if (!logprobs.empty())  // none of the choice's deltas took them
      out.push_back(text_delta({}, false, std::move(logprobs)));
    if (f.has[kFinishReason]) {
      TW_ASSIGN(auto s, json::as_string(f.e[kFinishReason], Path(path, "finish_reason")));
      finish_ = std::string(s);
    }
    return Status::Ok();
  }

  static ir::TextDelta text_delta(std::string_view text, bool refusal, std::string logprobs) {
    ir::TextDelta d{std::string(text), refusal, std::move(logprobs)};
    if (refusal || !d.logprobs.empty()) d.dialect = kDialect;
    return d;
  }

  // Delta members no event carries (`audio`, the deprecated `function_call`,
  // `annotations`...): dropped at the path the whole response keeps them at.
  void note_other_delta_members(json::object delta) {
    static constexpr std::string_view kCarried[] = {"role", "content", "reasoning_content",
                                                    "tool_calls", "refusal"};
    for (auto [key, value] : delta) {
      if (value.is_null() ||
          std::find(std::begin(kCarried), std::end(kCarried), key) != std::end(kCarried))
        continue;
      note("dropped_unknown_field", "$.choices[0].message." + std::string(key),
           "field '" + std::string(key) + "' has no stream event; the stream drops it");
    }
  }

  Status on_tool_call(json::element c, const Path& path, std::vector<ir::StreamEvent>& out) {
    TW_ASSIGN(auto obj, json::as_object(c, path));
    enum { kIndex, kId, kFunction };
    static constexpr std::string_view kKeys[] = {"index", "id", "function"};
    const auto f = pick(obj, kKeys);
    std::string_view id, name, args;
    if (f.has[kId]) {
      TW_ASSIGN(auto s, json::as_string(f.e[kId], Path(path, "id")));
      id = s;
    }
    if (f.has[kFunction]) {
      Path fp(path, "function");
      TW_ASSIGN(auto fn, json::as_object(f.e[kFunction], fp));
      enum { kFnName, kFnArguments };
      static constexpr std::string_view kFnKeys[] = {"name", "arguments"};
      const auto g = pick(fn, kFnKeys);
      if (g.has[kFnName]) {
        TW_ASSIGN(auto s, json::as_string(g.e[kFnName], Path(fp, "name")));
        name = s;
      }
      if (g.has[kFnArguments]) {
        TW_ASSIGN(auto s, json::as_string(g.e[kFnArguments], Path(fp, "arguments")));
        args = s;
      }
    }
    int64_t index;
    if (f.has[kIndex]) {
      TW_ASSIGN(auto n, json::as_int64(f.e[kIndex], Path(path, "index")));
      if (n < 0 || n >= kMaxToolCalls)
        return json::invalid(Path(path, "index"), "tool call index out of range");
      index = n;
    } else if (!id.empty()) {  // servers that omit `index`: a new id is the next call
      index = started_calls_;
    } else if (last_index_ >= 0) {
      index = last_index_;
    } else {
      return json::invalid(Path(path, "index"), "missing tool call index");
    }
    if (static_cast<size_t>(index) >= calls_.size()) calls_.resize(index + 1, 0);
    if (!calls_[index]) {
      if (id.empty())
        return json::invalid(Path(path, "id"),
                             "tool call " + std::to_string(index) + " starts without an id");
      out.push_back(ir::ToolCallStart{static_cast<int>(index), std::string(id), std::string(name)});
      calls_[index] = 1;
      ++started_calls_;
    }
    last_index_ = index;
    if (!args.empty()) out.push_back(ir::ToolCallDelta{static_cast<int>(index), std::string(args)});
    return Status::Ok();
  }

  simdjson::dom::parser parser_;
  std::vector<uint8_t> calls_;  // by index: 1 once started
  int64_t started_calls_ = 0;
  int64_t last_index_ = -1;
  std::string finish_;
  std::vector<std::string> kept_members_;  // the first chunk's, on the MessageStart
  std::string head_, tail_;  // the learnt envelope around choices[0].delta (fast path)
  size_t event_no_ = 0;
  bool started_ = false;
};

}  // namespace

std::unique_ptr<StreamDecoder> make_stream_decoder() { return std::make_unique<Decoder>(); }

}  // namespace toolwire::dialects::openai_chat
