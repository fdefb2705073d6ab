// IR stream events → Anthropic Messages SSE, framed like the real API:
// `event: <type>\ndata: <json>\n\n`.
//
// message_start is written when the first event after MessageStart arrives,
// so usage reported right after the start (input tokens) lands in it, as in
// Anthropic's own streams. Blocks get increasing indexes and close when
// another kind of content starts. A ToolCallDelta for a call whose block was
// already closed (interleaved parallel calls from OpenAI) is written with that
// call's block index: SDKs accumulate deltas by index.
#include <charconv>
#include <unordered_map>

#include "dialects/anthropic_messages/wire.h"
#include "dialects/common/call_id.h"
#include "dialects/common/stream_encoder_base.h"

namespace toolwire::dialects::anthropic_messages {
namespace {

using json::Path;

class Encoder final : public StreamEncoderBase<Encoder> {
  friend StreamEncoderBase<Encoder>;

  enum class Open { none, text, thinking, redacted, tool };

  // "event: <name>\ndata: " + JSON written by `body` + "\n\n".
  template <class F>
  void emit(std::string_view name, std::string& out, F&& body) {
    out.append("event: ");
    out.append(name);
    out.append("\ndata: ");
    JsonWriter w(out);
    w.begin_object();
    w.field("type", name);
    body(w);
    w.end_object();
    out.append("\n\n");
  }

  void on(const ir::MessageStart& e, std::string& out) {
    own_extras(e.extras, kDialect, "anthropic");  // none of its own yet
    if (started_ || pending_start_) {
      note("duplicate_message_start", "a second MessageStart was ignored");
      return;
    }
    pending_start_ = true;
    id_ = e.id;
    model_ = e.model;
    (void)out;
  }

  void ensure_started(std::string& out) {
    if (started_) return;
    if (!pending_start_)
      note("synthesized_message_start", "the stream had no MessageStart; one was generated");
    if (id_.empty()) id_ = synthesize_message_id();
    started_ = true;
    start_usage_ = usage_;
    emit("message_start", out, [&](JsonWriter& w) {
      w.key("message");
      w.begin_object();
      w.field("id", id_);
      w.field("type", "message");
      w.field("role", "assistant");
      w.field("model", model_);
      w.key("content");
      w.begin_array();
      w.end_array();
      w.field_null("stop_reason");
      w.field_null("stop_sequence");
      w.key("usage");
      w.begin_object();
      write_input_usage(usage_, w);
      w.field("output_tokens", usage_.output_tokens.value_or(0));
      w.end_object();
      w.end_object();
    });
    out.append("event: ping\ndata: {\"type\": \"ping\"}\n\n");
  }

  void close_block(std::string& out) {
    if (open_ == Open::none) return;
    emit("content_block_stop", out, [&](JsonWriter& w) { w.field("index", open_index_); });
    open_ = Open::none;
  }

  template <class F>
  void open_block(Open kind, std::string& out, F&& block) {
    close_block(out);
    open_ = kind;
    open_index_ = next_index_++;
    emit("content_block_start", out, [&](JsonWriter& w) {
      w.field("index", open_index_);
      w.key("content_block");
      w.begin_object();
      block(w);
      w.end_object();
    });
  }

  // The hot path of a stream: one content_block_delta per fragment, written
  // as literal pieces around one escaped value (byte for byte what emit()
  // and JsonWriter would write, without their bookkeeping).
  //   `type` is the delta type, `key` the field holding the fragment.
  void delta(int index, std::string_view type, std::string_view key, std::string_view value,
             std::string& out) {
    out.append("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":");
    char digits[16];
    auto [end, ec] = std::to_chars(digits, digits + sizeof digits, index);
    out.append(digits, end);
    out.append(",\"delta\":{\"type\":\"");
    out.append(type);
    out.append("\",\"");
    out.append(key);
    out.append("\":");
    JsonWriter::append_escaped(out, value);
    out.append("}}\n\n");
  }

  void on(const ir::TextDelta& e, std::string& out) {
    ensure_started(out);
    if (drop_text_extras(e, kDialect, "anthropic") || e.text.empty()) return;
    if (open_ != Open::text)
      open_block(Open::text, out, [](JsonWriter& w) {
        w.field("type", "text");
        w.field("text", "");
      });
    delta(open_index_, "text_delta", "text", e.text, out);
  }

  void on(const ir::ThinkingDelta& e, std::string& out) {
    ensure_started(out);
    if (!e.item_id.empty() || !e.encrypted_content.empty())
      note_once(
          "dropped_reasoning_item",
          "an OpenAI Responses reasoning item's id and encrypted content have no Anthropic form");
    if (e.redacted) {  // carries all its data in the start event
      open_block(Open::redacted, out, [&](JsonWriter& w) {
        w.field("type", "redacted_thinking");
        w.field("data", e.text);
      });
      return;
    }
    if (open_ != Open::thinking)
      open_block(Open::thinking, out, [](JsonWriter& w) {
        w.field("type", "thinking");
        w.field("thinking", "");
        w.field("signature", "");
      });
    if (!e.text.empty()) delta(open_index_, "thinking_delta", "thinking", e.text, out);
    if (!e.signature.empty()) delta(open_index_, "signature_delta", "signature", e.signature, out);
  }

  void start_tool(int index, const std::string& id, const std::string& name, std::string& out) {
    saw_tool_ = true;
    open_block(Open::tool, out, [&](JsonWriter& w) {
      w.field("type", "tool_use");
      w.field("id", call_id::to_anthropic(id));
      w.field("name", name);
      w.key("input");
      w.begin_object();
      w.end_object();
    });
    open_tool_ = index;
    tool_blocks_[index] = open_index_;
  }

  void on(const ir::ToolCallStart& e, std::string& out) {
    ensure_started(out);
    if (tool_blocks_.count(e.index)) {
      note("duplicate_tool_call_start",
           "a second ToolCallStart for index " + std::to_string(e.index) + " was ignored");
      return;
    }
    if (!e.signature.empty())
      note_once("dropped_call_signature", "Anthropic tool_use blocks carry no provider signature");
    start_tool(e.index, e.id, e.name, out);
  }

  void on(const ir::ToolCallDelta& e, std::string& out) {
    ensure_started(out);
    if (e.fragment.empty()) return;
    int block;
    if (open_ == Open::tool && open_tool_ == e.index) {
      block = open_index_;
    } else if (auto it = tool_blocks_.find(e.index); it != tool_blocks_.end()) {
      block = it->second;  // interleaved parallel calls: that call's own block
    } else {
      note("synthesized_tool_call_start", "arguments for tool call " + std::to_string(e.index) +
                                              " came before its start; a start was generated");
      start_tool(e.index, "toolu_toolwire_" + std::to_string(e.index), "", out);
      block = open_index_;
    }
    delta(block, "input_json_delta", "partial_json", e.fragment, out);
  }

  void on(const ir::ToolCallEnd& e, std::string& out) {
    if (open_ == Open::tool && open_tool_ == e.index) close_block(out);
  }

  void on(const ir::UsageEvent& e, std::string&) {
    merge_usage(e.usage);
    own_extras(e.extras, kDialect, "anthropic");
  }

  void on(const ir::Finish& e, std::string& out) {
    own_extras(e.extras, kDialect, "anthropic");
    ensure_started(out);
    close_block(out);
    emit("message_delta", out, [&](JsonWriter& w) {
      w.key("delta");
      w.begin_object();
      w.field("stop_reason", encode_stop_reason(e.reason, saw_tool_));
      if (e.stop_sequence.empty())
        w.field_null("stop_sequence");
      else
        w.field("stop_sequence", e.stop_sequence);
      w.end_object();
      w.key("usage");
      w.begin_object();
      // Input counts learnt after message_start (e.g. from OpenAI's final
      // usage chunk) go here, where Anthropic's SDKs also read them.
      if (usage_.input_tokens != start_usage_.input_tokens ||
          usage_.cache_read_tokens != start_usage_.cache_read_tokens ||
          usage_.cache_write_tokens != start_usage_.cache_write_tokens) {
        write_input_usage(usage_, w);
      }
      w.field("output_tokens", usage_.output_tokens.value_or(0));
      w.end_object();
    });
    emit("message_stop", out, [](JsonWriter&) {});
    finished_ = true;
  }

  void on(const ir::ErrorEvent& e, std::string& out) {
    emit("error", out, [&](JsonWriter& w) {
      w.key("error");
      w.begin_object();
      w.field("type", e.type.empty() ? std::string_view("api_error") : std::string_view(e.type));
      w.field("message", e.message);
      w.end_object();
    });
    finished_ = true;
  }

  std::string id_, model_;
  ir::Usage start_usage_;
  std::unordered_map<int, int> tool_blocks_;  // IR tool index → block index
  Open open_ = Open::none;
  int open_index_ = -1;
  int open_tool_ = -1;
  int next_index_ = 0;
  bool pending_start_ = false;
  bool started_ = false;
  bool saw_tool_ = false;
};

}  // namespace

std::unique_ptr<StreamEncoder> make_stream_encoder() { return std::make_unique<Encoder>(); }

}  // namespace toolwire::dialects::anthropic_messages
