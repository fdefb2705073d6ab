// IR stream events → ConverseStream bytes (application/vnd.amazon.eventstream),
// framed like the real API: one event-stream message per event, headers
// `:event-type`, `:content-type: application/json`, `:message-type: event`,
// the event's JSON as the payload.
//
// Text and reasoning blocks open with their first delta (Bedrock sends no
// contentBlockStart for them) and close when another kind of content
// starts; a tool call is a contentBlockStart with start.toolUse, its
// argument fragments as delta.toolUse.input strings, and a contentBlockStop.
// Every delta names its block, so interleaved parallel calls stay apart.
// Finish becomes messageStop and then `metadata` with the usage gathered
// from the UsageEvents; an ErrorEvent becomes an exception message.
#include <charconv>
#include <map>

#include "dialects/bedrock_converse/wire.h"
#include "dialects/common/call_id.h"
#include "dialects/common/stream_encoder_base.h"
#include "toolwire/dialects/framing/eventstream.h"

namespace toolwire::dialects::bedrock_converse {
namespace {

class Encoder final : public StreamEncoderBase<Encoder> {
  friend StreamEncoderBase<Encoder>;

  enum class Open { none, text, reasoning };

  // One event message whose payload `body` writes as a JSON object's members.
  template <class F>
  void emit(std::string_view type, std::string& out, F&& body) {
    const EventStreamHeaderView headers[] = {
        {":event-type", type}, {":content-type", "application/json"}, {":message-type", "event"}};
    const size_t start = begin_event_stream_message(out, headers);
    JsonWriter w(out);
    w.begin_object();
    body(w);
    w.end_object();
    end_event_stream_message(out, start);
  }

  // The hot path: a contentBlockDelta written as literal pieces around one
  // escaped value: {"contentBlockIndex":N,"delta":<head><value><tail>}.
  void delta(int index, std::string_view head, std::string_view value, std::string_view tail,
             std::string& out) {
    static constexpr EventStreamHeaderView kHeaders[] = {{":event-type", "contentBlockDelta"},
                                                         {":content-type", "application/json"},
                                                         {":message-type", "event"}};
    const size_t start = begin_event_stream_message(out, kHeaders);
    out.append("{\"contentBlockIndex\":");
    char digits[16];
    auto [end, ec] = std::to_chars(digits, digits + sizeof digits, index);
    out.append(digits, end);
    out.append(",\"delta\":");
    out.append(head);
    JsonWriter::append_escaped(out, value);
    out.append(tail);
    out.append("}");
    end_event_stream_message(out, start);
  }

  void ensure_started(std::string& out) {
    if (started_) return;
    if (!saw_start_)
      note("synthesized_message_start", "the stream had no MessageStart; one was generated");
    started_ = true;
    emit("messageStart", out, [](JsonWriter& w) { w.field("role", "assistant"); });
  }

  void close_open(std::string& out) {
    if (open_ == Open::none) return;
    const int index = open_index_;
    emit("contentBlockStop", out, [&](JsonWriter& w) { w.field("contentBlockIndex", index); });
    open_ = Open::none;
  }

  void open(Open kind, std::string& out) {
    if (open_ == kind) return;
    close_open(out);
    open_ = kind;
    open_index_ = next_index_++;
  }

  void on(const ir::MessageStart& e, std::string& out) {
    own_extras(e.extras, kDialect, "bedrock");  // none of its own yet
    if (saw_start_) {
      note("duplicate_message_start", "a second MessageStart was ignored");
      return;
    }
    saw_start_ = true;
    ensure_started(out);
  }

  void on(const ir::TextDelta& e, std::string& out) {
    ensure_started(out);
    if (drop_text_extras(e, kDialect, "bedrock") || e.text.empty()) return;
    open(Open::text, out);
    delta(open_index_, "{\"text\":", e.text, "}", out);
  }

  void on(const ir::ThinkingDelta& e, std::string& out) {
    ensure_started(out);
    if (!e.item_id.empty() || !e.encrypted_content.empty())
      note_once("dropped_reasoning_item", "Bedrock reasoning has no item id or encrypted content");
    if (e.text.empty() && e.signature.empty() && !e.redacted) return;
    open(Open::reasoning, out);
    if (e.redacted) {
      delta(open_index_, "{\"reasoningContent\":{\"redactedContent\":", e.text, "}}", out);
      return;
    }
    if (!e.text.empty()) delta(open_index_, "{\"reasoningContent\":{\"text\":", e.text, "}}", out);
    if (!e.signature.empty())
      delta(open_index_, "{\"reasoningContent\":{\"signature\":", e.signature, "}}", out);
  }

  void on(const ir::ToolCallStart& e, std::string& out) {
    ensure_started(out);
    close_open(out);
    if (tools_.count(e.index)) {
      note("duplicate_tool_call_start",
           "a second ToolCallStart for call " + std::to_string(e.index) + " was ignored");
      return;
    }
    const int index = next_index_++;
    tools_[e.index] = ToolBlock{index, true};
    saw_tool_ = true;
    if (!e.signature.empty())
      note_once("dropped_call_signature", "Bedrock tool calls carry no provider signature");
    emit("contentBlockStart", out, [&](JsonWriter& w) {
      w.field("contentBlockIndex", index);
      w.key("start");
      w.begin_object();
      w.key("toolUse");
      w.begin_object();
      std::string scratch;
      w.field("toolUseId", call_id::to_anthropic(e.id, scratch));
      w.field("name", e.name);
      w.end_object();
      w.end_object();
    });
  }

  void on(const ir::ToolCallDelta& e, std::string& out) {
    auto it = tools_.find(e.index);
    if (it == tools_.end()) {
      note("orphan_tool_call_delta",
           "arguments for call " + std::to_string(e.index) + ", which never started, were dropped");
      return;
    }
    if (e.fragment.empty()) return;
    // After its ToolCallEnd too (parallel calls whose deltas interleave):
    // the delta names its block, which a client accumulates by index.
    delta(it->second.block, "{\"toolUse\":{\"input\":", e.fragment, "}}", out);
  }

  void on(const ir::ToolCallEnd& e, std::string& out) {
    auto it = tools_.find(e.index);
    if (it == tools_.end() || !it->second.open) return;
    const int index = it->second.block;
    it->second.open = false;
    emit("contentBlockStop", out, [&](JsonWriter& w) { w.field("contentBlockIndex", index); });
  }

  void on(const ir::UsageEvent& e, std::string&) {
    merge_usage(e.usage);
    own_extras(e.extras, kDialect, "bedrock");
  }

  void on(const ir::Finish& e, std::string& out) {
    drop_stop_sequence(e, "bedrock");
    own_extras(e.extras, kDialect, "bedrock");  // none of its own yet
    ensure_started(out);
    close_open(out);
    for (auto& [call, tool] : tools_) {
      if (!tool.open) continue;
      const int block = tool.block;
      tool.open = false;
      emit("contentBlockStop", out, [&](JsonWriter& w) { w.field("contentBlockIndex", block); });
    }
    const std::string_view reason = encode_stop_reason(e.reason, saw_tool_);
    emit("messageStop", out, [&](JsonWriter& w) { w.field("stopReason", reason); });
    emit("metadata", out, [&](JsonWriter& w) {
      w.key("usage");
      w.begin_object();
      encode_usage(usage_, w);
      w.end_object();
      w.field_raw("metrics", R"({"latencyMs":0})");
    });
    finished_ = true;
  }

  void on(const ir::ErrorEvent& e, std::string& out) {
    const std::string_view type = stream_exception_type(e.type);
    const EventStreamHeaderView headers[] = {{":exception-type", type},
                                             {":content-type", "application/json"},
                                             {":message-type", "exception"}};
    const size_t start = begin_event_stream_message(out, headers);
    JsonWriter w(out);
    w.begin_object();
    w.field("message", e.message);
    // Another dialect's type ("overloaded_error") rides along for a toolwire
    // decoder; AWS clients read the header and ignore the member.
    if (type != e.type) w.field("originalErrorType", e.type);
    w.end_object();
    end_event_stream_message(out, start);
    finished_ = true;
  }

  struct ToolBlock {
    int block;  // its content block index
    bool open;
  };
  std::map<int, ToolBlock> tools_;  // by IR call index
  Open open_ = Open::none;
  int open_index_ = -1;
  int next_index_ = 0;
  bool saw_start_ = false;
  bool started_ = false;
  bool saw_tool_ = false;
};

}  // namespace

std::unique_ptr<StreamEncoder> make_stream_encoder() { return std::make_unique<Encoder>(); }

}  // namespace toolwire::dialects::bedrock_converse
