// IR events → OpenAI Chat Completions SSE, framed as the API does:
// `data: {chat.completion.chunk}\n\n` per event and `data: [DONE]\n\n` last.
#include <atomic>
#include <charconv>
#include <vector>

#include "dialects/common/stream_encoder_base.h"
#include "dialects/openai_chat/wire.h"

namespace toolwire::dialects::openai_chat {
namespace {

std::atomic<uint64_t> g_synthesized_ids{0};

// The end of every chunk that does not finish the stream.
constexpr std::string_view kNoFinish = ",\"logprobs\":null,\"finish_reason\":null}]}\n\n";

class Encoder final : public StreamEncoderBase<Encoder> {
  friend StreamEncoderBase<Encoder>;

 public:
  void encode(const ir::StreamEvent& event, std::string& out) override {
    if (finished_) {
      warn(warnings_, "event_after_end", "", "stream event after Finish/Error ignored");
      return;
    }
    if (const auto* err = std::get_if<ir::ErrorEvent>(&event)) {
      write_error(*err, out);
      finished_ = true;
      return;
    }
    if (const auto* start = std::get_if<ir::MessageStart>(&event)) {
      if (started_) {
        warn(warnings_, "duplicate_message_start", "", "a second MessageStart was ignored");
        return;
      }
      id_ = start->id;
      model_ = start->model;
      created_ = start->created;
      if (own_extras(start->extras, kDialect, "openai")) [[unlikely]]
        envelope_extra_ = start->extras.extra;
      if (id_.empty()) id_ = next_id();
      write_role_chunk(out);
      return;
    }
    if (!started_) {  // out-of-order IR: make up the start the client expects
      warn(warnings_, "synthesized_message_start", "",
           "stream had no MessageStart; an id was generated");
      id_ = next_id();
      write_role_chunk(out);
    }
    std::visit([&](const auto& e) { on(e, out); }, event);
  }

 private:
  static std::string next_id() {
    return "chatcmpl-toolwire-" + std::to_string(++g_synthesized_ids);
  }

  void on(const ir::MessageStart&, std::string&) {}
  void on(const ir::ErrorEvent&, std::string&) {}
  void on(const ir::ToolCallEnd&, std::string&) {}

  // A chunk whose delta is one text field: `opening` is `{"<field>":`.
  void text_delta(std::string_view opening, std::string_view text, std::string& out) {
    flush_role(out);
    out.append(envelope_);
    out.append(opening);
    JsonWriter::append_escaped(out, text);
    out.append("}");
    out.append(kNoFinish);
  }

  void on(const ir::TextDelta& e, std::string& out) {
    if (e.refusal || !e.logprobs.empty()) [[unlikely]]
      return rich_text_delta(e, out);
    if (e.text.empty()) return;
    text_delta(R"({"content":)", e.text, out);
  }

  // A refusal (`delta.refusal`), or text with its logprobs (written back
  // when they are this dialect's, else dropped with a warning).
  void rich_text_delta(const ir::TextDelta& e, std::string& out) {
    drop_text_extras(e, kDialect, "openai", /*has_refusal=*/true);
    const bool logprobs = !e.logprobs.empty() && e.dialect == kDialect;
    if (e.text.empty() && !logprobs) return;
    flush_role(out);
    out.append(envelope_);
    {
      JsonWriter w(out);
      w.begin_object();
      if (!e.text.empty()) w.field(e.refusal ? "refusal" : "content", e.text);
      w.end_object();
    }
    out.append(",\"logprobs\":");
    out.append(logprobs ? std::string_view(e.logprobs) : std::string_view("null"));
    out.append(",\"finish_reason\":null}]}\n\n");
  }

  void on(const ir::ThinkingDelta& e, std::string& out) {
    if (e.redacted) {
      warn(warnings_, "dropped_redacted_thinking", "",
           "redacted thinking cannot be expressed in OpenAI Chat");
      return;
    }
    if (!e.signature.empty())
      note_once("dropped_thinking_signature", "reasoning_content carries no signature");
    if (!e.item_id.empty() || !e.encrypted_content.empty())
      note_once("dropped_reasoning_item",
                "reasoning_content carries no Responses reasoning item id or encrypted content");
    if (e.text.empty()) return;
    text_delta(R"({"reasoning_content":)", e.text, out);
  }

  void on(const ir::ToolCallStart& e, std::string& out) {
    if (!e.signature.empty())
      note_once("dropped_call_signature", "OpenAI tool calls carry no provider signature");
    start_call(e.index, e.id, e.name, out);
  }

  void start_call(int index, std::string_view id, std::string_view name, std::string& out) {
    saw_calls_ = true;
    if (index >= 0 && index < (1 << 16)) {
      if (static_cast<size_t>(index) >= started_calls_.size()) started_calls_.resize(index + 1, 0);
      started_calls_[index] = 1;
    }
    std::string made;
    if (id.empty()) {  // clients match results by id: never send an empty one
      warn(warnings_, "synthesized_call_id", "", "a tool call had no id; one was generated");
      made = "call_toolwire_" + std::to_string(++g_synthesized_ids);
      id = made;
    }
    const bool opens_turn = role_pending_;
    role_pending_ = false;
    chunk(out, [&](JsonWriter& w) {
      if (opens_turn) {
        w.field("role", "assistant");
        w.field_null("content");
      }
      w.key("tool_calls");
      w.begin_array();
      w.begin_object();
      w.field("index", index);
      w.field("id", id);
      w.field("type", "function");
      w.key("function");
      w.begin_object();
      w.field("name", name);
      w.field("arguments", "");
      w.end_object();
      w.end_object();
      w.end_array();
    });
  }

  void on(const ir::ToolCallDelta& e, std::string& out) {
    if (e.fragment.empty()) return;
    if (e.index < 0 || static_cast<size_t>(e.index) >= started_calls_.size() ||
        !started_calls_[e.index]) {
      warn(warnings_, "synthesized_tool_call_start", "",
           "arguments arrived for a tool call that never started");
      start_call(e.index, {}, {}, out);
    }
    // The hot path of a tool-call stream: literal pieces around one escaped
    // fragment (what JsonWriter would write, without its bookkeeping).
    out.append(envelope_);
    out.append(R"({"tool_calls":[{"index":)");
    char digits[16];
    auto [end, ec] = std::to_chars(digits, digits + sizeof digits, e.index);
    out.append(digits, end);
    out.append(R"(,"function":{"arguments":)");
    JsonWriter::append_escaped(out, e.fragment);
    out.append("}}]}");
    out.append(kNoFinish);
  }

  void on(const ir::UsageEvent& e, std::string&) {
    merge_usage(e.usage);
    if (own_extras(e.extras, kDialect, "openai")) [[unlikely]]
      for (const auto& x : e.extras.extra) {  // a later value replaces an earlier one
        std::erase_if(usage_extra_, [&](const ir::ExtraField& y) { return y.key == x.key; });
        usage_extra_.push_back(x);
      }
  }

  void on(const ir::Finish& e, std::string& out) {
    drop_stop_sequence(e, "openai");
    own_extras(e.extras, kDialect, "openai");  // a Chat finish has no members of its own
    flush_role(out);
    chunk(
        out, [](JsonWriter&) {}, encode_finish_reason(e.reason, saw_calls_));
    if (!usage_.empty() || !usage_extra_.empty()) {  // the stream_options.include_usage chunk
      std::vector<PlacedMember> placed = collect_placed(usage_extra_);  // usage details
      out.append("data: ");
      JsonWriter w(out);
      w.begin_object();
      header(w);
      w.key("choices");
      w.begin_array();
      w.end_array();
      write_usage(w, usage_, placed.empty() ? nullptr : &placed);
      w.end_object();
      out.append("\n\n");
    }
    out.append("data: [DONE]\n\n");
    finished_ = true;
  }

  void header(JsonWriter& w) {
    w.field("id", id_);
    w.field("object", "chat.completion.chunk");
    w.field("created", created_);
    w.field("model", model_);
    for (const auto& x : envelope_extra_) w.field_raw(x.key, x.raw_json);  // system_fingerprint...
  }

  // Every chunk repeats the same envelope: it is escaped once, at the start.
  void make_envelope() {
    envelope_ = "data: ";
    JsonWriter w(envelope_);
    w.begin_object();
    header(w);
    envelope_.append(",\"choices\":[{\"index\":0,\"delta\":");
  }

  template <class F>
  void chunk(std::string& out, F&& delta, std::string_view finish = {}) {
    out.append(envelope_);
    {
      JsonWriter w(out);
      w.begin_object();
      delta(w);
      w.end_object();
    }
    if (finish.empty()) {
      out.append(kNoFinish);
    } else {
      out.append(",\"logprobs\":null,\"finish_reason\":");
      JsonWriter::append_escaped(out, finish);
      out.append("}]}\n\n");
    }
  }

  // OpenAI's first chunk says the role with `content: ""` before text, and
  // `content: null` together with the first call when a turn opens with one:
  // so the role waits for the first content event to know which.
  void write_role_chunk(std::string&) {
    make_envelope();
    started_ = true;
    role_pending_ = true;
  }

  void flush_role(std::string& out) {
    if (!role_pending_) return;
    role_pending_ = false;
    chunk(out, [](JsonWriter& w) {
      w.field("role", "assistant");
      w.field("content", "");
    });
  }

  void write_error(const ir::ErrorEvent& e, std::string& out) {
    out.append("data: ");
    JsonWriter w(out);
    w.begin_object();
    w.key("error");
    w.begin_object();
    w.field("message", e.message);
    w.field("type", e.type.empty() ? std::string_view("server_error") : std::string_view(e.type));
    w.field_null("param");
    w.field_null("code");
    w.end_object();
    w.end_object();
    out.append("\n\n");
  }

  std::string id_, model_;
  std::string envelope_;                        // `data: {"id":...,"choices":[{"index":0,"delta":`
  std::vector<ir::ExtraField> envelope_extra_;  // an `openai` source's chunk members
  std::vector<ir::ExtraField> usage_extra_;     // its usage details (placed members)
  int64_t created_ = 0;
  std::vector<uint8_t> started_calls_;  // by index: 1 once its start chunk went out
  bool started_ = false;
  bool role_pending_ = false;  // the role chunk waits for the first content event
  bool saw_calls_ = false;
};

}  // namespace

std::unique_ptr<StreamEncoder> make_stream_encoder() { return std::make_unique<Encoder>(); }

}  // namespace toolwire::dialects::openai_chat
