// stream_encoder_base.h — what every stream encoder keeps the same way: its
// warnings, a loss that repeats with every event warned about once per
// stream, the usage reported so far, and the end of the stream, after which
// events are ignored.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <variant>

#include "dialects/common/placed_member.h"
#include "toolwire/dialects/codec.h"

namespace toolwire::dialects {

// `Derived` has an `on(const E&, std::string&)` for each IR stream event type
// (a friend of this class when private); encode() visits them until the
// stream finished.
template <class Derived>
class StreamEncoderBase : public StreamEncoder {
 public:
  const Warnings& warnings() const override { return warnings_; }

  void encode(const ir::StreamEvent& event, std::string& out) override {
    if (ignored_after_end("events after Finish/ErrorEvent were ignored")) return;
    std::visit([&](const auto& e) { static_cast<Derived*>(this)->on(e, out); }, event);
  }

 protected:
  void note(std::string code, std::string message) {
    warnings_.push_back(Warning{std::move(code), {}, std::move(message)});
  }
  // Notes the warning unless one with `code` is there already. (Views: the
  // text is copied only the first time.)
  void note_once(std::string_view code, std::string_view message) {
    if (std::none_of(warnings_.begin(), warnings_.end(),
                     [&](const Warning& w) { return w.code == code; }))
      note(std::string(code), std::string(message));
  }
  // Notes the warning unless one with `code` and `path` is there already.
  void note_at(std::string_view code, std::string_view path, std::string_view message) {
    if (std::none_of(warnings_.begin(), warnings_.end(),
                     [&](const Warning& w) { return w.code == code && w.path == path; }))
      warnings_.push_back(Warning{std::string(code), std::string(path), std::string(message)});
  }
  // What a TextDelta carries besides answer text, for an encoder of dialect
  // `self` (a codec name) writing `target` (its short name): logprobs of
  // another dialect and, unless `has_refusal`, a refusal are dropped with the
  // warnings the whole response gives for them. True: the delta is a refusal
  // this encoder cannot write (nothing of it to write).
  bool drop_text_extras(const ir::TextDelta& e, std::string_view self, std::string_view target,
                        bool has_refusal = false) {
    if (!e.logprobs.empty() && e.dialect != self) [[unlikely]]
      note_at("dropped_unknown_field",
              e.dialect == "openai_chat" ? "$.choices[0].logprobs" : "$.logprobs",
              "field 'logprobs' has no " + std::string(target) + " equivalent");
    if (!e.refusal || has_refusal) [[likely]]
      return false;
    note_at("dropped_unknown_part",
            e.dialect == "openai_chat" ? "$.choices[0].delta.refusal" : "response.refusal.delta",
            "a refusal has no " + std::string(target) + " equivalent");
    return true;
  }
  // A Finish's stop sequence, for a target without a place for it.
  void drop_stop_sequence(const ir::Finish& e, std::string_view target) {
    if (e.stop_sequence.empty()) [[likely]]
      return;
    note_at("dropped_unknown_field", "$.stop_sequence",
            "field 'stop_sequence' has no " + std::string(target) + " equivalent");
  }

  // An event's raw extras (ir::StreamExtras): true when they are this
  // encoder's dialect `self`, to write back; else each one that says
  // something is dropped with the warning the whole response gives for it.
  bool own_extras(const ir::StreamExtras& x, std::string_view self, std::string_view target) {
    if (x.extra.empty() || x.dialect == self) [[likely]]
      return !x.extra.empty();
    for (const auto& e : x.extra) {
      const bool placed = is_placed_key(e.key);
      if (placed ? placed_value_is_empty(e.raw_json) : e.raw_json == "null") continue;
      const std::string_view name = placed ? placed_member_name(e.key) : std::string_view(e.key);
      note_at("dropped_unknown_field", placed ? e.key : "$." + e.key,
              "field '" + std::string(name) + "' has no " + std::string(target) + " equivalent");
    }
    return false;
  }

  // True once the stream finished: the event is ignored, and said so once.
  bool ignored_after_end(std::string_view message) {
    if (!finished_) [[likely]]
      return false;
    note_once("event_after_end", message);
    return true;
  }

  // The counts a UsageEvent carries replace the ones known so far.
  void merge_usage(const ir::Usage& u) {
    if (u.input_tokens) usage_.input_tokens = u.input_tokens;
    if (u.output_tokens) usage_.output_tokens = u.output_tokens;
    if (u.cache_read_tokens) usage_.cache_read_tokens = u.cache_read_tokens;
    if (u.cache_write_tokens) usage_.cache_write_tokens = u.cache_write_tokens;
  }

  Warnings warnings_;
  ir::Usage usage_;        // merged from the UsageEvents
  bool finished_ = false;  // after Finish or ErrorEvent
};

}  // namespace toolwire::dialects
