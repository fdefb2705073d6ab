// IR events → OpenAI Responses SSE, framed as the API does:
// `event: <type>\ndata: {"type":"<type>","sequence_number":N,...}\n\n`.
//
// MessageStart writes response.created and response.in_progress. Text and
// thinking open a message / reasoning item that closes when another kind of
// content starts (a message holds an output_text part and a refusal part
// for each run of text or refusal deltas); each tool call is a function_call item of its own, open
// from its start to its end (interleaved parallel calls keep their own
// output_index). Finish closes what is open and writes response.completed
// (or response.incomplete) with every output item and the usage.
#include <algorithm>
#include <atomic>
#include <charconv>
#include <functional>
#include <unordered_map>

#include "dialects/common/openai_usage.h"
#include "dialects/common/stream_encoder_base.h"
#include "dialects/openai_responses/wire.h"

namespace toolwire::dialects::openai_responses {
namespace {

std::atomic<uint64_t> g_synthesized_ids{0};

class Encoder final : public StreamEncoderBase<Encoder> {
  friend StreamEncoderBase<Encoder>;

 public:
  void encode(const ir::StreamEvent& event, std::string& out) override {
    if (ignored_after_end("stream events after Finish/Error were ignored")) return;
    if (const auto* start = std::get_if<ir::MessageStart>(&event)) {
      own_extras(start->extras, kDialect, "responses");  // none of its own yet
      if (started_) {
        warn(warnings_, "duplicate_message_start", "", "a second MessageStart was ignored");
        return;
      }
      start_response(start->id, start->model, start->created, out);
      return;
    }
    if (!started_ && !std::holds_alternative<ir::ErrorEvent>(event)) {
      warn(warnings_, "synthesized_message_start", "",
           "stream had no MessageStart; an id was generated");
      start_response({}, {}, 0, out);
    }
    std::visit([&](const auto& e) { on(e, out); }, event);
  }

 private:
  enum class Open { none, message, reasoning };
  enum class Part { none, text, refusal };  // the open content part of a message
  struct Call {
    int output_index;
    std::string item_id, call_id, name, arguments;
    bool ended = false;
  };

  // "event: <name>\ndata: {"type":"<name>","sequence_number":N" — the caller
  // writes the rest of the object and then calls end_event.
  void begin_event(std::string_view name, std::string& out) {
    out.append("event: ");
    out.append(name);
    out.append("\ndata: {\"type\":\"");
    out.append(name);
    out.append("\",\"sequence_number\":");
    append_number(out, sequence_++);
  }
  static void end_event(std::string& out) { out.append("}\n\n"); }
  static void append_number(std::string& out, int64_t n) {
    char digits[24];
    auto [end, ec] = std::to_chars(digits, digits + sizeof digits, n);
    out.append(digits, end);
  }
  // ,"key": then whatever `body` writes with a JsonWriter.
  template <class F>
  static void member(std::string& out, std::string_view key, F&& body) {
    out.append(",\"");
    out.append(key);
    out.append("\":");
    JsonWriter w(out);
    body(w);
  }
  // ,"item_id":"…","output_index":N
  static void item_ref(std::string& out, std::string_view id, int index) {
    out.append(",\"item_id\":");
    JsonWriter::append_escaped(out, id);
    out.append(",\"output_index\":");
    append_number(out, index);
  }

  void start_response(std::string_view id, std::string_view model, int64_t created,
                      std::string& out) {
    started_ = true;
    id_ = id.empty() ? "resp_toolwire_" + std::to_string(++g_synthesized_ids) : std::string(id);
    model_ = model;
    created_ = created;
    for (std::string_view name : {"response.created", "response.in_progress"}) {
      begin_event(name, out);
      member(out, "response", [&](JsonWriter& w) { response_object(w, "in_progress", {}, false); });
      end_event(out);
    }
  }

  void response_object(JsonWriter& w, std::string_view status, std::string_view reason,
                       bool final) {
    w.begin_object();
    w.field("id", id_);
    w.field("object", "response");
    w.field("created_at", created_);
    w.field("status", status);
    w.field_null("error");
    if (reason.empty()) {
      w.field_null("incomplete_details");
    } else {
      w.key("incomplete_details");
      w.begin_object();
      w.field("reason", reason);
      w.end_object();
    }
    w.field("model", model_);
    w.key("output");
    w.begin_array();
    if (final)
      for (const auto& item : done_items_)
        if (!item.empty()) w.raw(item);
    w.end_array();
    if (final)
      write_usage(w, usage_);
    else
      w.field_null("usage");
    w.end_object();
  }

  // Writes output_item.added for a new item and returns its output_index.
  int add_item(std::string& out, const std::function<void(JsonWriter&)>& item) {
    const int index = next_output_++;
    done_items_.emplace_back();
    begin_event("response.output_item.added", out);
    out.append(",\"output_index\":");
    append_number(out, index);
    member(out, "item", item);
    end_event(out);
    return index;
  }

  void done_item(int index, std::string item_json, std::string& out) {
    begin_event("response.output_item.done", out);
    out.append(",\"output_index\":");
    append_number(out, index);
    out.append(",\"item\":");
    out.append(item_json);
    end_event(out);
    done_items_[static_cast<size_t>(index)] = std::move(item_json);
  }

  std::string new_id(std::string_view prefix) { return item_id(prefix, id_base(id_), item_no_++); }

  void close_open(std::string& out) {
    if (open_ == Open::message) close_message(out);
    if (open_ == Open::reasoning) close_reasoning(out);
    open_ = Open::none;
  }

  void open_message(std::string& out) {
    close_open(out);
    open_ = Open::message;
    open_id_ = new_id("msg");
    text_.clear();
    open_index_ = add_item(out, [&](JsonWriter& w) {
      w.begin_object();
      w.field("id", open_id_);
      w.field("type", "message");
      w.field("status", "in_progress");
      w.field("role", "assistant");
      w.key("content");
      w.begin_array();
      w.end_array();
      w.end_object();
    });
    part_ = Part::none;
    content_index_ = -1;
    parts_.clear();
  }

  // Opens the message's next content part: output_text, or a refusal
  // (`{"type":"refusal","refusal":""}`, its text in response.refusal.delta).
  void open_part(Part kind, std::string& out) {
    if (open_ != Open::message) open_message(out);
    close_part(out);
    part_ = kind;
    ++content_index_;
    text_.clear();
    begin_event("response.content_part.added", out);
    item_ref(out, open_id_, open_index_);
    out.append(",\"content_index\":");
    append_number(out, content_index_);
    out.append(kind == Part::text
                   ? ",\"part\":{\"type\":\"output_text\",\"text\":\"\",\"annotations\":[]}"
                   : ",\"part\":{\"type\":\"refusal\",\"refusal\":\"\"}");
    end_event(out);
  }

  // output_text.done / refusal.done, then content_part.done with the part.
  void close_part(std::string& out) {
    if (part_ == Part::none) return;
    const bool text = part_ == Part::text;
    part_ = Part::none;
    begin_event(text ? "response.output_text.done" : "response.refusal.done", out);
    item_ref(out, open_id_, open_index_);
    out.append(",\"content_index\":");
    append_number(out, content_index_);
    member(out, text ? "text" : "refusal", [&](JsonWriter& w) { w.string(text_); });
    end_event(out);
    std::string part;
    {
      JsonWriter w(part);
      w.begin_object();
      if (text) {
        w.field("type", "output_text");
        w.field("text", text_);
        w.key("annotations");
        w.begin_array();
        w.end_array();
      } else {
        w.field("type", "refusal");
        w.field("refusal", text_);
      }
      w.end_object();
    }
    begin_event("response.content_part.done", out);
    item_ref(out, open_id_, open_index_);
    out.append(",\"content_index\":");
    append_number(out, content_index_);
    out.append(",\"part\":");
    out.append(part);
    end_event(out);
    parts_.push_back(std::move(part));
  }

  void close_message(std::string& out) {
    close_part(out);
    std::string item;
    JsonWriter w(item);
    w.begin_object();
    w.field("id", open_id_);
    w.field("type", "message");
    w.field("status", "completed");
    w.field("role", "assistant");
    w.key("content");
    w.begin_array();
    for (const auto& part : parts_) w.raw(part);
    w.end_array();
    w.end_object();
    done_item(open_index_, std::move(item), out);
  }

  void open_reasoning(std::string_view item_id, std::string& out) {
    close_open(out);
    open_ = Open::reasoning;
    // A kept id takes a number too, as in a whole answer (response_encoder.cc),
    // so a streamed answer's items have the ids its whole form gives them.
    open_id_ = new_id("rs");
    if (!item_id.empty()) open_id_ = item_id;
    text_.clear();
    encrypted_.clear();
    summary_open_ = false;
    open_index_ = add_item(out, [&](JsonWriter& w) {
      w.begin_object();
      w.field("id", open_id_);
      w.field("type", "reasoning");
      w.key("summary");
      w.begin_array();
      w.end_array();
      w.end_object();
    });
  }

  void close_reasoning(std::string& out) {
    if (summary_open_) {
      begin_event("response.reasoning_summary_text.done", out);
      item_ref(out, open_id_, open_index_);
      out.append(",\"summary_index\":0");
      member(out, "text", [&](JsonWriter& w) { w.string(text_); });
      end_event(out);
      begin_event("response.reasoning_summary_part.done", out);
      item_ref(out, open_id_, open_index_);
      out.append(",\"summary_index\":0");
      member(out, "part", [&](JsonWriter& w) {
        w.begin_object();
        w.field("type", "summary_text");
        w.field("text", text_);
        w.end_object();
      });
      end_event(out);
    }
    std::string item;
    JsonWriter w(item);
    w.begin_object();
    w.field("id", open_id_);
    w.field("type", "reasoning");
    w.key("summary");
    w.begin_array();
    if (summary_open_) {
      w.begin_object();
      w.field("type", "summary_text");
      w.field("text", text_);
      w.end_object();
    }
    w.end_array();
    if (!encrypted_.empty()) w.field("encrypted_content", encrypted_);
    w.end_object();
    done_item(open_index_, std::move(item), out);
  }

  void on(const ir::MessageStart&, std::string&) {}

  // The hot path of a text stream: literal pieces around one escaped value.
  void on(const ir::TextDelta& e, std::string& out) {
    if (drop_text_extras(e, kDialect, "responses", /*has_refusal=*/true) || e.text.empty()) return;
    if (e.refusal) [[unlikely]]
      return refusal_delta(e.text, out);
    if (open_ != Open::message || part_ != Part::text) open_part(Part::text, out);
    text_ += e.text;
    begin_event("response.output_text.delta", out);
    item_ref(out, open_id_, open_index_);
    out.append(",\"content_index\":");
    append_number(out, content_index_);
    out.append(",\"delta\":");
    JsonWriter::append_escaped(out, e.text);
    out.append(",\"logprobs\":[]");
    end_event(out);
  }

  void refusal_delta(std::string_view text, std::string& out) {
    if (open_ != Open::message || part_ != Part::refusal) open_part(Part::refusal, out);
    text_ += text;
    begin_event("response.refusal.delta", out);
    item_ref(out, open_id_, open_index_);
    out.append(",\"content_index\":");
    append_number(out, content_index_);
    out.append(",\"delta\":");
    JsonWriter::append_escaped(out, text);
    end_event(out);
  }

  void on(const ir::ThinkingDelta& e, std::string& out) {
    if (e.redacted) {
      warn(warnings_, "dropped_redacted_thinking", "",
           "redacted thinking cannot be expressed in OpenAI Responses");
      return;
    }
    if (!e.signature.empty())
      note_once("dropped_thinking_signature", "a reasoning item carries no thinking signature");
    const bool new_item = !e.item_id.empty() && e.item_id != open_id_;
    if (open_ != Open::reasoning || new_item) {
      if (e.text.empty() && e.item_id.empty() && e.encrypted_content.empty()) return;
      open_reasoning(e.item_id, out);
    }
    encrypted_ += e.encrypted_content;
    if (e.text.empty()) return;
    if (!summary_open_) {
      summary_open_ = true;
      begin_event("response.reasoning_summary_part.added", out);
      item_ref(out, open_id_, open_index_);
      out.append(",\"summary_index\":0,\"part\":{\"type\":\"summary_text\",\"text\":\"\"}");
      end_event(out);
    }
    text_ += e.text;
    begin_event("response.reasoning_summary_text.delta", out);
    item_ref(out, open_id_, open_index_);
    out.append(",\"summary_index\":0,\"delta\":");
    JsonWriter::append_escaped(out, e.text);
    end_event(out);
  }

  Call& start_call(int index, std::string_view id, std::string_view name, std::string& out) {
    close_open(out);
    saw_calls_ = true;
    Call& call = calls_[index];
    call.item_id = new_id("fc");
    call.call_id = id;
    if (call.call_id.empty()) {  // clients match outputs by call_id: never send an empty one
      warn(warnings_, "synthesized_call_id", "", "a tool call had no id; one was generated");
      call.call_id = "call_toolwire_" + std::to_string(++g_synthesized_ids);
    }
    call.name = name;
    call.output_index = add_item(out, [&](JsonWriter& w) {
      w.begin_object();
      w.field("id", call.item_id);
      w.field("type", "function_call");
      w.field("status", "in_progress");
      w.field("arguments", "");
      w.field("call_id", call.call_id);
      w.field("name", call.name);
      w.end_object();
    });
    return call;
  }

  void on(const ir::ToolCallStart& e, std::string& out) {
    if (calls_.count(e.index)) {
      warn(warnings_, "duplicate_tool_call_start", "",
           "a second ToolCallStart for index " + std::to_string(e.index) + " was ignored");
      return;
    }
    if (!e.signature.empty())
      note_once("dropped_call_signature", "a function_call item carries no provider signature");
    start_call(e.index, e.id, e.name, out);
  }

  void on(const ir::ToolCallDelta& e, std::string& out) {
    if (e.fragment.empty()) return;
    auto it = calls_.find(e.index);
    Call* call = it == calls_.end() ? nullptr : &it->second;
    if (!call) {
      warn(warnings_, "synthesized_tool_call_start", "",
           "arguments arrived for a tool call that never started");
      call = &start_call(e.index, {}, {}, out);
    }
    // A delta after the call's end (interleaved parallel calls from a source
    // that ends a call when the next one starts) goes to the call's own item,
    // as Anthropic's encoder does with a closed block; the final output has it.
    call->arguments += e.fragment;
    begin_event("response.function_call_arguments.delta", out);
    item_ref(out, call->item_id, call->output_index);
    out.append(",\"delta\":");
    JsonWriter::append_escaped(out, e.fragment);
    end_event(out);
  }

  void end_call(Call& call, std::string& out) {
    call.ended = true;
    begin_event("response.function_call_arguments.done", out);
    item_ref(out, call.item_id, call.output_index);
    member(out, "arguments", [&](JsonWriter& w) { w.string(call.arguments); });
    end_event(out);
    done_item(call.output_index, call_item(call), out);
  }

  static std::string call_item(const Call& call) {
    std::string item;
    JsonWriter w(item);
    w.begin_object();
    w.field("id", call.item_id);
    w.field("type", "function_call");
    w.field("status", "completed");
    w.field("arguments", call.arguments);
    w.field("call_id", call.call_id);
    w.field("name", call.name);
    w.end_object();
    return item;
  }

  void on(const ir::ToolCallEnd& e, std::string& out) {
    auto it = calls_.find(e.index);
    if (it != calls_.end() && !it->second.ended) end_call(it->second, out);
  }

  void on(const ir::UsageEvent& e, std::string&) {
    merge_usage(e.usage);
    own_extras(e.extras, kDialect, "responses");
  }

  void on(const ir::Finish& e, std::string& out) {
    drop_stop_sequence(e, "responses");
    own_extras(e.extras, kDialect, "responses");
    close_open(out);
    std::vector<Call*> open_calls;
    for (auto& [index, call] : calls_)
      if (!call.ended) open_calls.push_back(&call);
    std::sort(open_calls.begin(), open_calls.end(),
              [](const Call* a, const Call* b) { return a->output_index < b->output_index; });
    for (Call* call : open_calls) end_call(*call, out);
    for (const auto& [index, call] : calls_)  // with any argument that came after its end
      done_items_[static_cast<size_t>(call.output_index)] = call_item(call);
    warn_dropped_cache_write(usage_, "", warnings_);
    ir::FinishReason reason = e.reason;
    if (saw_calls_ && reason.kind == ir::FinishReason::Kind::stop)
      reason.kind = ir::FinishReason::Kind::tool_calls;
    WireStatus st = encode_status(reason);
    if (st.status == "failed") {  // a Finish{error}: the stream's failure event
      on(ir::ErrorEvent{"server_error", reason.raw}, out);
      return;
    }
    const std::string_view name =
        st.status == "incomplete" ? "response.incomplete" : "response.completed";
    begin_event(name, out);
    member(out, "response",
           [&](JsonWriter& w) { response_object(w, st.status, st.incomplete_reason, true); });
    end_event(out);
    finished_ = true;
  }

  void on(const ir::ErrorEvent& e, std::string& out) {
    begin_event("error", out);
    member(out, "code", [&](JsonWriter& w) {
      w.string(e.type.empty() ? std::string_view("server_error") : std::string_view(e.type));
    });
    member(out, "message", [&](JsonWriter& w) { w.string(e.message); });
    out.append(",\"param\":null");
    end_event(out);
    finished_ = true;
  }

  std::string id_, model_;
  int64_t created_ = 0;
  int64_t sequence_ = 0;
  std::unordered_map<int, Call> calls_;  // by IR tool index
  std::vector<std::string> done_items_;  // by output_index: the finished item's JSON
  Open open_ = Open::none;
  Part part_ = Part::none;
  int content_index_ = -1;          // the open message's last content part
  std::vector<std::string> parts_;  // the open message's finished parts' JSON
  std::string open_id_, text_, encrypted_;
  int open_index_ = -1;
  int next_output_ = 0;
  size_t item_no_ = 0;
  bool summary_open_ = false;
  bool started_ = false;
  bool saw_calls_ = false;
};

}  // namespace

std::unique_ptr<StreamEncoder> make_stream_encoder() { return std::make_unique<Encoder>(); }

}  // namespace toolwire::dialects::openai_responses
