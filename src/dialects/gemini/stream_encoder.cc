// IR stream events → Gemini streamGenerateContent?alt=sse, framed like the
// real API: `data: <GenerateContentResponse>\r\n\r\n` per chunk.
//
// Text and thought deltas go out at once, one chunk each. Gemini sends a
// call whole, so a call's argument deltas are buffered and written as one
// functionCall part when other content follows or the message finishes (not
// at its ToolCallEnd: an Anthropic stream of interleaved calls may send a
// call's fragment after its block stopped). The usage known so far rides on
// every chunk, as in the API's streams; the finish reason goes in a last
// chunk of its own.
#include <algorithm>
#include <map>

#include "dialects/common/rfc3339.h"
#include "dialects/common/stream_encoder_base.h"
#include "dialects/gemini/wire.h"
#include "toolwire/core/json_valid.h"

namespace toolwire::dialects::gemini {
namespace {

using json::Path;

class Encoder final : public StreamEncoderBase<Encoder> {
  friend StreamEncoderBase<Encoder>;

  struct Call {
    std::string id, name, signature, arguments;
  };

  // One chunk: `parts` writes the content's parts; `tail` what follows the
  // candidate's content (finishReason).
  template <class Parts, class Tail>
  void chunk(std::string& out, Parts&& parts, Tail&& tail, bool with_usage) {
    out.append("data: ");
    JsonWriter w(out);
    w.begin_object();
    (void)write_candidate(
        w,
        [&](JsonWriter& w) {
          parts(w);
          return Status::Ok();
        },
        [&](JsonWriter& w) {
          tail(w);
          w.field("index", 0);
          return Status::Ok();
        });
    if (with_usage || !usage_.empty()) write_usage(w, usage_);
    if (!model_.empty()) w.field("modelVersion", model_);
    if (!id_.empty()) w.field("responseId", id_);
    if (!created_.empty()) w.field("createTime", created_);
    w.end_object();
    out.append("\r\n\r\n");
  }

  void on(const ir::MessageStart& e, std::string&) {
    own_extras(e.extras, kDialect, "gemini");  // none of its own yet
    if (started_) {
      note("duplicate_message_start", "a second MessageStart was ignored");
      return;
    }
    started_ = true;
    id_ = e.id;
    model_ = e.model;
    if (e.created) created_ = format_rfc3339(e.created);
  }

  void flush_calls(std::string& out) {
    for (const auto& [index, call] : calls_) flush_call(call, out);
    for (const auto& [index, call] : calls_) flushed_.push_back(index);
    calls_.clear();
  }

  void on(const ir::TextDelta& e, std::string& out) {
    if (drop_text_extras(e, kDialect, "gemini") || e.text.empty()) return;
    flush_calls(out);
    chunk(
        out,
        [&](JsonWriter& w) {
          w.begin_object();
          w.field("text", e.text);
          w.end_object();
        },
        [](JsonWriter&) {}, false);
  }

  void on(const ir::ThinkingDelta& e, std::string& out) {
    if (e.redacted) {
      note("dropped_redacted_thinking", "Gemini has no form for redacted thinking; it was dropped");
      return;
    }
    if (!e.item_id.empty() || !e.encrypted_content.empty())
      note_once("dropped_reasoning_item", "Gemini thoughts have no item id or encrypted content");
    if (e.text.empty() && e.signature.empty()) return;
    flush_calls(out);
    chunk(
        out,
        [&](JsonWriter& w) {
          w.begin_object();
          w.field("text", e.text);
          w.field("thought", true);
          if (!e.signature.empty()) w.field("thoughtSignature", e.signature);
          w.end_object();
        },
        [](JsonWriter&) {}, false);
  }

  void on(const ir::ToolCallStart& e, std::string&) {
    if (calls_.count(e.index)) {
      note("duplicate_tool_call_start",
           "a second ToolCallStart for index " + std::to_string(e.index) + " was ignored");
      return;
    }
    calls_[e.index] = Call{e.id, e.name, e.signature, {}};
    saw_tool_ = true;
  }

  void on(const ir::ToolCallDelta& e, std::string&) {
    auto it = calls_.find(e.index);
    if (it == calls_.end() &&
        std::find(flushed_.begin(), flushed_.end(), e.index) != flushed_.end()) {
      note("dropped_late_fragment", "a fragment of tool call " + std::to_string(e.index) +
                                        " came after the call was written; it was dropped");
      return;
    }
    if (it == calls_.end()) {
      note("synthesized_tool_call_start", "arguments for tool call " + std::to_string(e.index) +
                                              " came before its start; a start was generated");
      it = calls_.emplace(e.index, Call{}).first;
      saw_tool_ = true;
    }
    it->second.arguments += e.fragment;
  }

  void flush_call(const Call& c, std::string& out) {
    chunk(
        out,
        [&](JsonWriter& w) {
          ir::ToolCallPart part;
          part.id = c.id;
          part.name = c.name;
          part.signature = c.signature;
          part.arguments = c.arguments;
          // One SSE data line: JSON's line breaks sit between tokens only.
          if (has_line_break(part.arguments) && is_valid_json(part.arguments))
            std::replace_if(
                part.arguments.begin(), part.arguments.end(),
                [](char ch) { return ch == '\n' || ch == '\r'; }, ' ');
          part.arguments_valid = true;
          Warnings local;
          if (!write_call_part<ir::Owning>(part, {}, false, Path(), w, local)) {
            // A name Gemini refuses: sent as it is, with a warning.
            w.begin_object();
            w.key("functionCall");
            w.begin_object();
            if (!c.id.empty()) w.field("id", c.id);
            w.field("name", c.name);
            w.key("args");
            write_args(c.arguments, true, false, Path(), w, local);
            w.end_object();
            w.end_object();
            note("invalid_tool_name", "tool name '" + c.name + "' is not one Gemini accepts");
          }
          for (auto& warning : local) warnings_.push_back(std::move(warning));
        },
        [](JsonWriter&) {}, false);
  }

  void on(const ir::ToolCallEnd&, std::string&) {}  // written with the next content

  void on(const ir::UsageEvent& e, std::string&) {
    own_extras(e.extras, kDialect, "gemini");
    if (e.usage.input_tokens) usage_.input_tokens = e.usage.input_tokens;
    if (e.usage.output_tokens) usage_.output_tokens = e.usage.output_tokens;
    if (e.usage.cache_read_tokens) usage_.cache_read_tokens = e.usage.cache_read_tokens;
    if (e.usage.cache_write_tokens)
      note_once("dropped_cache_write_tokens",
                "Gemini usage has no count of tokens written to a cache");
  }

  void on(const ir::Finish& e, std::string& out) {
    drop_stop_sequence(e, "gemini");
    const bool own = own_extras(e.extras, kDialect, "gemini");
    flush_calls(out);
    chunk(
        out, [](JsonWriter&) {},
        [&](JsonWriter& w) {
          w.field("finishReason", encode_finish_reason(e.reason, saw_tool_));
          if (own) [[unlikely]]  // safetyRatings...: the candidate's, as the whole response
            for (const auto& x : e.extras.extra)
              if (std::string_view(x.key).starts_with(kCandidatePrefix))
                w.field_raw(std::string_view(x.key).substr(kCandidatePrefix.size()), x.raw_json);
        },
        true);
    finished_ = true;
  }

  void on(const ir::ErrorEvent& e, std::string& out) {
    // The type is kept as the status (a stream translated back keeps it);
    // the code is the HTTP status the type stands for.
    const std::string_view status = e.type.empty() ? std::string_view("INTERNAL") : e.type;
    int code = 500;
    if (status == "RESOURCE_EXHAUSTED" || status == "rate_limit_error")
      code = 429;
    else if (status == "UNAVAILABLE" || status == "overloaded_error" ||
             status == "service_unavailable")
      code = 503;
    else if (status == "INVALID_ARGUMENT" || status == "invalid_request_error")
      code = 400;
    else if (status == "DEADLINE_EXCEEDED")
      code = 504;
    out.append("data: ");
    JsonWriter w(out);
    w.begin_object();
    w.key("error");
    w.begin_object();
    w.field("code", code);
    w.field("message", e.message);
    w.field("status", status);
    w.end_object();
    w.end_object();
    out.append("\r\n\r\n");
    finished_ = true;
  }

  std::string id_, model_, created_;
  std::map<int, Call> calls_;  // started, not yet written, by IR index
  std::vector<int> flushed_;   // the indexes already written
  bool started_ = false;
  bool saw_tool_ = false;
};

}  // namespace

std::unique_ptr<StreamEncoder> make_stream_encoder() { return std::make_unique<Encoder>(); }

}  // namespace toolwire::dialects::gemini
