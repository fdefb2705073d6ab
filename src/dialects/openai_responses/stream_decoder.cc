// OpenAI Responses SSE (`event: response.*` + `data: {...}`) → IR events.
//
// Each event is parsed once as it completes and its delta forwarded at once.
// Output items are told apart by `output_index`; a function_call item's index
// maps to the IR tool-call index (the call's ordinal in the turn).
#include <unordered_map>

#include "dialects/common/literal_match.h"
#include "dialects/common/stream_decoder_base.h"
#include "dialects/openai_responses/wire.h"
#include "toolwire/dialects/framing/sse.h"

namespace toolwire::dialects::openai_responses {
namespace {

using json::Path;

// Bounds the per-item state a hostile stream can make us allocate.
constexpr int64_t kMaxOutputIndex = 1 << 16;

class Decoder final : public StreamDecoderBase<Decoder, SseParser, SseSink> {
 public:
  static constexpr bool kKeepsError = true;
  static constexpr bool kIgnoresAfterDone = true;  // after the terminal event
  Error ended_early() const {
    return make_error(ErrorCode::parse_error,
                      framing_.has_partial_event()
                          ? "stream ended inside an event, before response.completed"
                          : "stream ended before response.completed");
  }

 private:
  enum class Kind : uint8_t { none, message, call, reasoning, other };
  struct Item {
    Kind kind = Kind::none;
    bool args_seen = false;  // a call's arguments were forwarded
    bool ended = false;
    bool encrypted_seen = false;
    int tool = -1;
  };

  Status on_event(SseEvent& ev) override {
    if (done_ || ev.data.empty()) return Status::Ok();
    ++event_no_;
    if (fast_delta(ev.data, *out_)) return Status::Ok();
    ev.data.reserve(ev.data.size() + simdjson::SIMDJSON_PADDING);
    json::element root;
    if (parser_.parse(ev.data.data(), ev.data.size(), false).get(root)) {
      Error e = json::parse(parser_, ev.data).error();
      e.message = "in '" + (ev.event.empty() ? std::string("message") : ev.event) +
                  "' event (SSE event " + std::to_string(event_no_) + "): " + e.message;
      return e;
    }
    return dispatch_typed_event(root, ev.event,
                                [&](std::string_view type, json::object obj, const Path& path) {
                                  return dispatch(type, obj, path, *out_);
                                });
  }

  // Most of a stream is text or argument deltas in the layout the API (and
  // toolwire's encoder) writes:
  //   {"type":"response.output_text.delta","sequence_number":N,"item_id":"…",
  //    "output_index":N,"content_index":N,"delta":"…","logprobs":[]}
  //   {"type":"response.function_call_arguments.delta","sequence_number":N,
  //    "item_id":"…","output_index":N,"delta":"…"}
  // One whose strings have no escapes is decoded by comparing literal pieces,
  // without a DOM; anything else takes the full path, which words every error.
  bool fast_delta(std::string_view d, std::vector<ir::StreamEvent>& out) {
    constexpr std::string_view kText = R"({"type":"response.output_text.delta","sequence_number":)";
    constexpr std::string_view kArgs =
        R"({"type":"response.function_call_arguments.delta","sequence_number":)";
    const bool text = d.starts_with(kText);
    if (!text && !d.starts_with(kArgs)) return false;
    size_t i = text ? kText.size() : kArgs.size();
    int64_t n;
    if (!json::small_index(d, i, 18, n)) return false;
    constexpr std::string_view kItem = R"(,"item_id":")";
    if (d.substr(i, kItem.size()) != kItem) return false;
    i += kItem.size();
    const size_t id_end = d.find('"', i);
    if (id_end == std::string_view::npos || !json::plain_string_body(d.substr(i, id_end - i)))
      return false;
    i = id_end + 1;
    constexpr std::string_view kOutput = R"(,"output_index":)";
    if (d.substr(i, kOutput.size()) != kOutput) return false;
    i += kOutput.size();
    int64_t index;
    if (!json::small_index(d, i, 6, index)) return false;
    if (text) {
      constexpr std::string_view kContent = R"(,"content_index":)";
      if (d.substr(i, kContent.size()) != kContent) return false;
      i += kContent.size();
      if (!json::small_index(d, i, 6, n)) return false;
    }
    constexpr std::string_view kDelta = R"(,"delta":")";
    if (d.substr(i, kDelta.size()) != kDelta) return false;
    i += kDelta.size();
    const std::string_view tail = text ? std::string_view(R"(","logprobs":[]})") : "\"}";
    if (d.size() < i + tail.size() || !d.ends_with(tail)) return false;
    const std::string_view body = d.substr(i, d.size() - tail.size() - i);
    if (!json::plain_string_body(body)) return false;
    const Item* item = find(index);
    if (!item || item->kind != (text ? Kind::message : Kind::call)) return false;
    if (body.empty()) return true;
    if (text)
      out.push_back(ir::TextDelta{std::string(body)});
    else
      forward_args(index, body, out);
    return true;
  }

  Item* find(int64_t index) {
    if (index < 0 || static_cast<size_t>(index) >= items_.size()) return nullptr;
    Item& item = items_[static_cast<size_t>(index)];
    return item.kind == Kind::none ? nullptr : &item;
  }

  void forward_args(int64_t index, std::string_view fragment, std::vector<ir::StreamEvent>& out) {
    Item& item = items_[static_cast<size_t>(index)];
    item.args_seen = true;
    out.push_back(ir::ToolCallDelta{item.tool, std::string(fragment)});
  }

  void ensure_started(json::object obj, std::vector<ir::StreamEvent>& out) {
    if (started_) return;
    started_ = true;
    ir::MessageStart start;  // a stream without response.created (the guide's events)
    json::element id;
    if (json::get(obj, "response_id", id) && id.is_string())
      start.id = std::string(id.get_string().value_unsafe());
    out.push_back(std::move(start));
  }

  Result<int64_t> output_index(json::object obj, const Path& path) {
    TW_ASSIGN(json::element el, json::required(obj, "output_index", path));
    TW_ASSIGN(int64_t index, json::as_int64(el, Path(path, "output_index")));
    if (index < 0 || index >= kMaxOutputIndex)
      return json::invalid(Path(path, "output_index"), "output_index out of range");
    return index;
  }

  Result<Item*> item_at(json::object obj, const Path& path, Kind kind, std::string_view what) {
    TW_ASSIGN(int64_t index, output_index(obj, path));
    Item* item = find(index);
    if (!item)
      return json::invalid(Path(path, "output_index"),
                           "output item " + std::to_string(index) + " was never added");
    if (kind != Kind::none && item->kind != kind)
      return json::invalid(Path(path, "output_index"),
                           "output item " + std::to_string(index) + " is not " + std::string(what));
    return item;
  }

  Status dispatch(std::string_view type, json::object obj, const Path& path,
                  std::vector<ir::StreamEvent>& out) {
    if (type == "response.output_text.delta") return on_text_delta(obj, path, out);
    if (type == "response.function_call_arguments.delta") return on_args_delta(obj, path, out);
    if (type == "response.reasoning_summary_text.delta") return on_summary_delta(obj, path, out);
    if (type == "response.created" || type == "response.in_progress" || type == "response.queued")
      return on_created(obj, path, out);
    if (type == "response.output_item.added") return on_item_added(obj, path, out);
    if (type == "response.content_part.added") return on_part_added(obj, path, out);
    if (type == "response.function_call_arguments.done") return on_args_done(obj, path, out);
    if (type == "response.output_item.done") return on_item_done(obj, path, out);
    if (type == "response.completed" || type == "response.incomplete")
      return on_completed(obj, path, out);
    if (type == "response.failed") return on_failed(obj, path, out);
    if (type == "error") return on_error(obj, out);
    if (type == "response.refusal.delta") return on_refusal_delta(obj, path, out);
    if (type == "response.output_text.annotation.added")
      note("dropped_annotations", content_path(obj) + ".annotations",
           "output_text annotations (citations) are not kept");
    else if (type == "response.reasoning_text.delta")
      note("dropped_reasoning_text", content_path(obj),
           "raw reasoning text has no stream event; the stream drops it");
    // output_text.done, content_part.done, refusal.done, reasoning_summary_part.*,
    // built-in tool progress (its item was warned about when added): nothing
    // the deltas lack.
    return Status::Ok();
  }

  // `$.output[i].content[j]` of the event's item and part, where the whole
  // response warns about what they lose.
  static std::string content_path(json::object obj) {
    std::string path = "$.output[";
    json::element el;
    int64_t n = 0;
    path += json::get(obj, "output_index", el) && !el.get_int64().get(n) ? std::to_string(n) : "?";
    path += "].content";
    if (json::get(obj, "content_index", el) && !el.get_int64().get(n))
      path += "[" + std::to_string(n) + "]";
    return path;
  }

  Status on_refusal_delta(json::object obj, const Path& path, std::vector<ir::StreamEvent>& out) {
    TW_ASSIGN(Item * item, item_at(obj, path, Kind::message, "a message"));
    (void)item;
    TW_ASSIGN(auto delta, delta_of(obj, path));
    if (!delta.empty())
      out.push_back(ir::TextDelta{std::string(delta), true, {}, std::string(kDialect)});
    return Status::Ok();
  }

  Status on_created(json::object obj, const Path& path, std::vector<ir::StreamEvent>& out) {
    if (started_) return Status::Ok();
    Path rp(path, "response");
    TW_ASSIGN(json::element resp_el, json::required(obj, "response", path));
    TW_ASSIGN(json::object resp, json::as_object(resp_el, rp));
    ir::MessageStart start;
    json::element el;
    if (json::get(resp, "id", el)) {
      TW_ASSIGN(auto s, json::as_string(el, Path(rp, "id")));
      start.id = std::string(s);
    }
    if (json::get(resp, "model", el)) {
      TW_ASSIGN(auto s, json::as_string(el, Path(rp, "model")));
      start.model = std::string(s);
    }
    if (json::get(resp, "created_at", el)) {
      TW_ASSIGN(auto n, json::as_int64(el, Path(rp, "created_at")));
      start.created = n;
    }
    started_ = true;
    out.push_back(std::move(start));
    return Status::Ok();
  }

  Status on_item_added(json::object obj, const Path& path, std::vector<ir::StreamEvent>& out) {
    ensure_started(obj, out);
    TW_ASSIGN(int64_t index, output_index(obj, path));
    if (find(index))
      return json::invalid(Path(path, "output_index"),
                           "output item " + std::to_string(index) + " added twice");
    Path ip(path, "item");
    TW_ASSIGN(json::element item_el, json::required(obj, "item", path));
    TW_ASSIGN(json::object item, json::as_object(item_el, ip));
    TW_ASSIGN(json::element type_el, json::required(item, "type", ip));
    TW_ASSIGN(std::string_view type, json::as_string(type_el, Path(ip, "type")));
    if (static_cast<size_t>(index) >= items_.size()) items_.resize(index + 1);
    Item& slot = items_[static_cast<size_t>(index)];
    auto text_field = [&](std::string_view key, std::string_view& value) -> Status {
      json::element el;
      if (!json::get(item, key, el)) return Status::Ok();
      TW_ASSIGN(value, json::as_string(el, Path(ip, key)));
      return Status::Ok();
    };
    if (type == "message") {
      slot.kind = Kind::message;
    } else if (type == "function_call") {
      std::string_view call_id, name, args;
      TW_TRY(text_field("call_id", call_id));
      TW_TRY(text_field("name", name));
      TW_TRY(text_field("arguments", args));
      if (call_id.empty()) return json::invalid(Path(ip, "call_id"), "missing call_id");
      slot.kind = Kind::call;
      slot.tool = next_tool_++;
      out.push_back(ir::ToolCallStart{slot.tool, std::string(call_id), std::string(name)});
      if (!args.empty()) forward_args(index, args, out);
    } else if (type == "reasoning") {
      std::string_view id, encrypted;
      TW_TRY(text_field("id", id));
      TW_TRY(text_field("encrypted_content", encrypted));
      slot.kind = Kind::reasoning;
      slot.encrypted_seen = !encrypted.empty();
      ir::ThinkingDelta d;
      d.item_id = std::string(id);
      d.encrypted_content = std::string(encrypted);
      out.push_back(std::move(d));
    } else {
      slot.kind = Kind::other;  // built-in tool calls: not in the IR
      note("dropped_unknown_part", "$.output[" + std::to_string(index) + "]",
           "a '" + std::string(type) + "' item has no stream event; the stream drops it");
    }
    return Status::Ok();
  }

  Status on_part_added(json::object obj, const Path& path, std::vector<ir::StreamEvent>& out) {
    TW_ASSIGN(Item * item, item_at(obj, path, Kind::none, ""));
    json::element part, text;
    if (item->kind != Kind::message || !json::get(obj, "part", part) || !part.is_object())
      return Status::Ok();
    if (json::get(part.get_object().value_unsafe(), "text", text)) {
      TW_ASSIGN(auto s, json::as_string(text, Path(Path(path, "part"), "text")));
      if (!s.empty()) out.push_back(ir::TextDelta{std::string(s)});
    }
    return Status::Ok();
  }

  Result<std::string_view> delta_of(json::object obj, const Path& path) {
    TW_ASSIGN(json::element el, json::required(obj, "delta", path));
    return json::as_string(el, Path(path, "delta"));
  }

  Status on_text_delta(json::object obj, const Path& path, std::vector<ir::StreamEvent>& out) {
    TW_ASSIGN(Item * item, item_at(obj, path, Kind::message, "a message"));
    (void)item;
    TW_ASSIGN(auto delta, delta_of(obj, path));
    if (!delta.empty()) out.push_back(ir::TextDelta{std::string(delta)});
    json::element logprobs;
    if (json::get(obj, "logprobs", logprobs) && logprobs.is_array() &&
        logprobs.get_array().value_unsafe().size() > 0) [[unlikely]]
      note("dropped_logprobs", content_path(obj) + ".logprobs",
           "output_text logprobs are not kept");
    return Status::Ok();
  }

  Status on_args_delta(json::object obj, const Path& path, std::vector<ir::StreamEvent>& out) {
    TW_ASSIGN(int64_t index, output_index(obj, path));
    TW_ASSIGN(Item * item, item_at(obj, path, Kind::call, "a function call"));
    (void)item;
    TW_ASSIGN(auto delta, delta_of(obj, path));
    if (!delta.empty()) forward_args(index, delta, out);
    return Status::Ok();
  }

  Status on_summary_delta(json::object obj, const Path& path, std::vector<ir::StreamEvent>& out) {
    TW_ASSIGN(Item * item, item_at(obj, path, Kind::reasoning, "a reasoning item"));
    (void)item;
    TW_ASSIGN(auto delta, delta_of(obj, path));
    if (!delta.empty()) out.push_back(ir::ThinkingDelta{std::string(delta), {}, false});
    return Status::Ok();
  }

  // The whole arguments, for a server that sent no deltas.
  Status on_args_done(json::object obj, const Path& path, std::vector<ir::StreamEvent>& out) {
    TW_ASSIGN(int64_t index, output_index(obj, path));
    TW_ASSIGN(Item * item, item_at(obj, path, Kind::call, "a function call"));
    json::element el;
    if (!item->args_seen && json::get(obj, "arguments", el)) {
      TW_ASSIGN(auto args, json::as_string(el, Path(path, "arguments")));
      if (!args.empty()) forward_args(index, args, out);
    }
    return Status::Ok();
  }

  Status on_item_done(json::object obj, const Path& path, std::vector<ir::StreamEvent>& out) {
    TW_ASSIGN(int64_t index, output_index(obj, path));
    TW_ASSIGN(Item * item, item_at(obj, path, Kind::none, ""));
    json::element item_el, el;
    json::object done_item;
    const bool has_item = json::get(obj, "item", item_el) && !item_el.get_object().get(done_item);
    Path ip(path, "item");
    if (item->kind == Kind::call && !item->ended) {
      if (!item->args_seen && has_item && json::get(done_item, "arguments", el)) {
        TW_ASSIGN(auto args, json::as_string(el, Path(ip, "arguments")));
        if (!args.empty()) forward_args(index, args, out);
      }
      item->ended = true;
      out.push_back(ir::ToolCallEnd{item->tool});
    } else if (item->kind == Kind::reasoning && !item->encrypted_seen && has_item &&
               json::get(done_item, "encrypted_content", el)) {
      TW_ASSIGN(auto enc, json::as_string(el, Path(ip, "encrypted_content")));
      item->encrypted_seen = true;
      if (!enc.empty()) {
        ir::ThinkingDelta d;
        d.encrypted_content = std::string(enc);
        out.push_back(std::move(d));
      }
    }
    return Status::Ok();
  }

  Status on_completed(json::object obj, const Path& path, std::vector<ir::StreamEvent>& out) {
    ensure_started(obj, out);
    Path rp(path, "response");
    std::string_view status = "completed", reason;
    json::element resp_el, el;
    if (json::get(obj, "response", resp_el)) {
      TW_ASSIGN(json::object resp, json::as_object(resp_el, rp));
      if (json::get(resp, "status", el)) {
        TW_ASSIGN(status, json::as_string(el, Path(rp, "status")));
      }
      if (json::get(resp, "incomplete_details", el)) {
        Path dp(rp, "incomplete_details");
        TW_ASSIGN(json::object details, json::as_object(el, dp));
        if (json::get(details, "reason", el)) {
          TW_ASSIGN(reason, json::as_string(el, Path(dp, "reason")));
        }
      }
      if (json::get(resp, "usage", el)) {
        TW_ASSIGN(ir::Usage usage, decode_usage(el, Path(rp, "usage")));
        if (!usage.empty()) out.push_back(ir::UsageEvent{usage});
      }
    }
    for (Item& item : items_)
      if (item.kind == Kind::call && !item.ended) {
        item.ended = true;
        out.push_back(ir::ToolCallEnd{item.tool});
      }
    out.push_back(ir::Finish{decode_status(status, reason, next_tool_ > 0)});
    done_ = true;
    return Status::Ok();
  }

  // A failed response: its error ends the stream as an ErrorEvent.
  Status on_failed(json::object obj, const Path& path, std::vector<ir::StreamEvent>& out) {
    ir::ErrorEvent ev;
    json::element resp_el, err_el;
    if (json::get(obj, "response", resp_el) && resp_el.is_object() &&
        json::get(resp_el.get_object().value_unsafe(), "error", err_el) && err_el.is_object())
      read_error(err_el.get_object().value_unsafe(), ev);
    (void)path;
    return end_with(std::move(ev), out);
  }

  Status on_error(json::object obj, std::vector<ir::StreamEvent>& out) {
    ir::ErrorEvent ev;
    json::element err_el;
    if (json::get(obj, "error", err_el) && err_el.is_object())  // {"error":{...}} from some servers
      read_error(err_el.get_object().value_unsafe(), ev);
    else
      read_error(obj, ev);
    return end_with(std::move(ev), out);
  }

  static void read_error(json::object obj, ir::ErrorEvent& ev) {
    json::element el;
    if (json::get(obj, "code", el) && el.is_string())
      ev.type = std::string(el.get_string().value_unsafe());
    else if (json::get(obj, "type", el) && el.is_string() &&
             el.get_string().value_unsafe() != "error")
      ev.type = std::string(el.get_string().value_unsafe());
    if (json::get(obj, "message", el) && el.is_string())
      ev.message = std::string(el.get_string().value_unsafe());
  }

  Status end_with(ir::ErrorEvent ev, std::vector<ir::StreamEvent>& out) {
    if (ev.type.empty()) ev.type = "server_error";
    out.push_back(std::move(ev));
    done_ = true;  // an error ends the stream: finish() succeeds
    return Status::Ok();
  }

  simdjson::dom::parser parser_;
  std::vector<Item> items_;  // by output_index
  int next_tool_ = 0;
  size_t event_no_ = 0;
  bool started_ = false;
};

}  // namespace

std::unique_ptr<StreamDecoder> make_stream_decoder() { return std::make_unique<Decoder>(); }

}  // namespace toolwire::dialects::openai_responses
