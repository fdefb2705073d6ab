// Anthropic Messages SSE bytes (any chunking) → IR stream events.
//
// Each event is parsed once as it completes; deltas are forwarded at once
// (tool arguments are never buffered), so decoding is linear in the input.
#include <unordered_map>

#include "dialects/anthropic_messages/wire.h"
#include "dialects/common/call_id.h"
#include "dialects/common/literal_match.h"
#include "dialects/common/stream_decoder_base.h"
#include "toolwire/dialects/framing/sse.h"

namespace toolwire::dialects::anthropic_messages {
namespace {

using json::Path;

class Decoder final : public StreamDecoderBase<Decoder, SseParser, SseSink> {
 public:
  static constexpr bool kKeepsError = false;
  static constexpr bool kIgnoresAfterDone = false;
  Error ended_early() const {
    return make_error(ErrorCode::parse_error,
                      framing_.has_partial_event()
                          ? "stream ended inside an event, before message_stop"
                          : "stream ended before message_stop");
  }

 private:
  enum class Kind { text, thinking, redacted, tool, other, none };
  struct Block {
    Kind kind;
    int tool_index;
  };
  // Blocks by index: a vector for the small indexes real streams use (one
  // lookup per delta), a map for anything a hostile stream sends.
  class BlockTable {
   public:
    const Block* find(int64_t index) const {
      if (index >= 0 && index < kDense) {
        const size_t i = static_cast<size_t>(index);
        return i < dense_.size() && dense_[i].kind != Kind::none ? &dense_[i] : nullptr;
      }
      auto it = sparse_.find(index);
      return it == sparse_.end() ? nullptr : &it->second;
    }
    void set(int64_t index, Block block) {
      if (index >= 0 && index < kDense) {
        const size_t i = static_cast<size_t>(index);
        if (i >= dense_.size()) dense_.resize(i + 1, Block{Kind::none, -1});
        dense_[i] = block;
      } else {
        sparse_[index] = block;
      }
    }

   private:
    static constexpr int64_t kDense = 256;
    std::vector<Block> dense_;
    std::unordered_map<int64_t, Block> sparse_;
  };

  // SseSink: each event as it completes (the parser's reused buffer).
  Status on_event(SseEvent& ev) override { return handle(ev, *out_); }

  Status handle(SseEvent& ev, std::vector<ir::StreamEvent>& out) {
    if (done_ || ev.data.empty()) return Status::Ok();  // after message_stop / error: ignored
    if (fast_delta(ev.data, out) || fast_fixed(ev.data, out)) return Status::Ok();
    // Parse in place: reserve simdjson's padding instead of copying the data.
    ev.data.reserve(ev.data.size() + simdjson::SIMDJSON_PADDING);
    json::element root;
    if (parser_.parse(ev.data.data(), ev.data.size(), false).get(root)) {
      return in_event(ev.event.empty() ? std::string_view("message") : ev.event,
                      json::parse(parser_, ev.data).error());
    }
    return dispatch_typed_event(root, ev.event,
                                [&](std::string_view type, json::object obj, const Path& path) {
                                  return dispatch(type, obj, path, out);
                                });
  }

  // Most of a stream is content_block_delta events in the exact layout
  // Anthropic (and toolwire's encoder) write:
  //   {"type":"content_block_delta","index":N,"delta":{"type":"text_delta","text":"..."}}
  // One whose text has no escapes is decoded here, by comparing literal
  // pieces, without building a DOM. Anything else (another key order,
  // whitespace, an escape, an unknown block, a kind mismatch, invalid UTF-8)
  // returns false and takes the full path, which also words every error.
  bool fast_delta(std::string_view d, std::vector<ir::StreamEvent>& out) {
    constexpr std::string_view kHead = R"({"type":"content_block_delta","index":)";
    constexpr std::string_view kDelta = R"(,"delta":{"type":")";
    constexpr std::string_view kTail = R"("}})";
    struct Form {
      std::string_view head;  // the delta type and the key of its text
      Kind kind;
    };
    static constexpr Form kForms[] = {{R"(text_delta","text":")", Kind::text},
                                      {R"(input_json_delta","partial_json":")", Kind::tool},
                                      {R"(thinking_delta","thinking":")", Kind::thinking}};
    if (!d.ends_with(kTail)) return false;
    size_t i;
    int64_t index;
    const Form* form = json::match_block_delta(d, kHead, kDelta, kForms, i, index);
    if (!form) return false;
    if (i > d.size() - kTail.size()) return false;
    const std::string_view text = d.substr(i, d.size() - kTail.size() - i);
    if (!json::plain_string_body(text)) return false;
    const Block* block = blocks_.find(index);
    if (!block || block->kind != form->kind) return false;
    if (text.empty()) return true;
    push_delta(form->kind == Kind::text, form->kind == Kind::tool, block->tool_index, text, out);
    return true;
  }

  // The short events of fixed form, in the exact layout Anthropic writes: a
  // block's end, the message's end, a ping. Each cost a DOM parse of its own
  // (a third of a streamed answer's events). Anything else, an unknown
  // block included, returns false and takes the full path.
  bool fast_fixed(std::string_view d, std::vector<ir::StreamEvent>& out) {
    constexpr std::string_view kBlockStop = R"({"type":"content_block_stop","index":)";
    if (d.starts_with(kBlockStop)) {
      size_t i = kBlockStop.size();
      int64_t index;
      if (!json::small_index(d, i, 9, index) || i + 1 != d.size() || d[i] != '}') return false;
      const Block* block = blocks_.find(index);
      if (!block) return false;
      if (block->kind == Kind::tool) out.push_back(ir::ToolCallEnd{block->tool_index});
      return true;
    }
    if (d == R"({"type":"message_stop"})") {
      on_message_stop(out);
      return true;
    }
    return d == R"({"type": "ping"})" || d == R"({"type":"ping"})";
  }

  void on_message_stop(std::vector<ir::StreamEvent>& out) {
    ir::Finish finish{decode_stop_reason(stop_reason_, saw_tool_), stop_sequence_};
    // Names the source: a folded answer (StreamAccumulator) keeps the stop
    // sequence as an Anthropic response's extra, written back by Anthropic.
    if (!stop_sequence_.empty()) finish.extras.dialect = kDialect;
    out.push_back(std::move(finish));
    done_ = true;
  }

  Status dispatch(std::string_view type, json::object obj, const Path& path,
                  std::vector<ir::StreamEvent>& out) {
    if (type == "content_block_delta") return on_delta(obj, path, out);
    if (type == "content_block_start") return on_block_start(obj, path, out);
    if (type == "content_block_stop") return on_block_stop(obj, path, out);
    if (type == "message_start") return on_message_start(obj, path, out);
    if (type == "message_delta") return on_message_delta(obj, path, out);
    if (type == "message_stop") {
      on_message_stop(out);
      return Status::Ok();
    }
    if (type == "error") return on_error(obj, path, out);
    return Status::Ok();  // ping and event types added later
  }

  Status on_message_start(json::object obj, const Path& path, std::vector<ir::StreamEvent>& out) {
    const Path mpath(path, "message");
    TW_ASSIGN(json::element msg_el, json::required(obj, "message", path));
    TW_ASSIGN(json::object msg, json::as_object(msg_el, mpath));
    ir::MessageStart start;
    json::element el;
    if (json::get(msg, "id", el)) {
      const Path p(mpath, "id");
      TW_ASSIGN(std::string_view id, json::as_string(el, p));
      start.id.assign(id);
    }
    if (json::get(msg, "model", el)) {
      const Path p(mpath, "model");
      TW_ASSIGN(std::string_view model, json::as_string(el, p));
      start.model.assign(model);
    }
    ir::Usage usage;
    if (json::get(msg, "usage", el)) {
      const Path p(mpath, "usage");
      TW_TRY(decode_usage(el, p, usage));
    }
    out.push_back(std::move(start));
    if (!usage.empty()) out.push_back(ir::UsageEvent{usage});
    return Status::Ok();
  }

  Result<int64_t> block_index(json::object obj, const Path& path) {
    const Path ipath(path, "index");
    TW_ASSIGN(json::element el, json::required(obj, "index", path));
    return json::as_int64(el, ipath);
  }

  Status on_block_start(json::object obj, const Path& path, std::vector<ir::StreamEvent>& out) {
    TW_ASSIGN(int64_t index, block_index(obj, path));
    const Path bpath(path, "content_block");
    TW_ASSIGN(json::element block_el, json::required(obj, "content_block", path));
    TW_ASSIGN(json::object block, json::as_object(block_el, bpath));
    const Path tpath(bpath, "type");
    TW_ASSIGN(json::element type_el, json::required(block, "type", bpath));
    TW_ASSIGN(std::string_view type, json::as_string(type_el, tpath));
    if (blocks_.find(index)) {
      const Path ipath(path, "index");
      return json::invalid(ipath, "content block " + std::to_string(index) + " started twice");
    }
    json::element el;
    auto text_field = [&](std::string_view key, std::string_view& value) -> Status {
      if (!json::get(block, key, el)) return Status::Ok();
      const Path p(bpath, key);
      TW_ASSIGN(value, json::as_string(el, p));
      return Status::Ok();
    };
    if (type == "text") {
      blocks_.set(index, Block{Kind::text, -1});
      std::string_view text;
      TW_TRY(text_field("text", text));
      if (!text.empty()) out.push_back(ir::TextDelta{std::string(text)});
    } else if (type == "thinking") {
      blocks_.set(index, Block{Kind::thinking, -1});
      std::string_view text, signature;
      TW_TRY(text_field("thinking", text));
      TW_TRY(text_field("signature", signature));
      if (!text.empty() || !signature.empty())
        out.push_back(ir::ThinkingDelta{std::string(text), std::string(signature), false});
    } else if (type == "redacted_thinking") {
      blocks_.set(index, Block{Kind::redacted, -1});
      std::string_view data;
      TW_TRY(text_field("data", data));
      out.push_back(ir::ThinkingDelta{std::string(data), {}, true});
    } else if (type == "tool_use") {
      std::string_view id, name;
      TW_TRY(text_field("id", id));
      TW_TRY(text_field("name", name));
      const int tool = next_tool_++;
      blocks_.set(index, Block{Kind::tool, tool});
      saw_tool_ = true;
      out.push_back(ir::ToolCallStart{tool, call_id::from_anthropic(id), std::string(name)});
      if (json::get(block, "input", el)) {
        const Path p(bpath, "input");
        TW_ASSIGN(json::object input, json::as_object(el, p));
        if (input.size() > 0) out.push_back(ir::ToolCallDelta{tool, json::compact(el)});
      }
    } else {
      // Server tool blocks, their results...: no stream event carries them
      // (the whole response keeps them); their deltas are skipped.
      blocks_.set(index, Block{Kind::other, -1});
      note("dropped_unknown_part", content_path(index),
           "a '" + std::string(type) + "' block has no stream event; the stream drops it");
    }
    return Status::Ok();
  }

  Result<Block> find_block(json::object obj, const Path& path) {
    TW_ASSIGN(int64_t index, block_index(obj, path));
    const Block* block = blocks_.find(index);
    if (!block) {
      const Path ipath(path, "index");
      return json::invalid(ipath, "content block " + std::to_string(index) + " was never started");
    }
    return *block;
  }

  Status on_delta(json::object obj, const Path& path, std::vector<ir::StreamEvent>& out) {
    TW_ASSIGN(Block block, find_block(obj, path));
    const Path dpath(path, "delta");
    TW_ASSIGN(json::element delta_el, json::required(obj, "delta", path));
    TW_ASSIGN(json::object delta, json::as_object(delta_el, dpath));
    const Path tpath(dpath, "type");
    TW_ASSIGN(json::element type_el, json::required(delta, "type", dpath));
    TW_ASSIGN(std::string_view type, json::as_string(type_el, tpath));
    if (block.kind == Kind::other) return Status::Ok();  // its block was dropped, with a warning
    auto text_field = [&](std::string_view key) -> Result<std::string_view> {
      const Path p(dpath, key);
      TW_ASSIGN(json::element el, json::required(delta, key, dpath));
      return json::as_string(el, p);
    };
    auto expect = [&](Kind kind) -> Status {
      if (block.kind == kind) return Status::Ok();
      return json::invalid(tpath,
                           "'" + std::string(type) + "' does not fit the block it is sent to");
    };
    if (type == "text_delta") {
      TW_TRY(expect(Kind::text));
      TW_ASSIGN(std::string_view text, text_field("text"));
      if (!text.empty()) out.push_back(ir::TextDelta{std::string(text)});
    } else if (type == "input_json_delta") {
      TW_TRY(expect(Kind::tool));
      TW_ASSIGN(std::string_view fragment, text_field("partial_json"));
      if (!fragment.empty())
        out.push_back(ir::ToolCallDelta{block.tool_index, std::string(fragment)});
    } else if (type == "thinking_delta") {
      TW_TRY(expect(Kind::thinking));
      TW_ASSIGN(std::string_view text, text_field("thinking"));
      if (!text.empty()) out.push_back(ir::ThinkingDelta{std::string(text), {}, false});
    } else if (type == "signature_delta") {
      TW_TRY(expect(Kind::thinking));
      TW_ASSIGN(std::string_view sig, text_field("signature"));
      if (!sig.empty()) out.push_back(ir::ThinkingDelta{{}, std::string(sig), false});
    } else if (type == "citations_delta") {
      // The whole response keeps a text block's citations (a placed member).
      TW_ASSIGN(int64_t index, block_index(obj, path));
      note("dropped_unknown_field", content_path(index) + ".citations",
           "field 'citations' has no stream event; the stream drops it");
    } else {
      TW_ASSIGN(int64_t index, block_index(obj, path));
      note("dropped_unknown_part", content_path(index),
           "a '" + std::string(type) + "' delta has no stream event; the stream drops it");
    }
    return Status::Ok();
  }

  Status on_block_stop(json::object obj, const Path& path, std::vector<ir::StreamEvent>& out) {
    TW_ASSIGN(Block block, find_block(obj, path));
    if (block.kind == Kind::tool) out.push_back(ir::ToolCallEnd{block.tool_index});
    return Status::Ok();
  }

  Status on_message_delta(json::object obj, const Path& path, std::vector<ir::StreamEvent>& out) {
    json::element el;
    if (json::get(obj, "delta", el)) {
      const Path dpath(path, "delta");
      TW_ASSIGN(json::object delta, json::as_object(el, dpath));
      if (json::get(delta, "stop_reason", el)) {
        const Path p(dpath, "stop_reason");
        TW_ASSIGN(std::string_view reason, json::as_string(el, p));
        stop_reason_.assign(reason);
      }
      if (json::get(delta, "stop_sequence", el) && !el.is_null()) {
        const Path p(dpath, "stop_sequence");
        TW_ASSIGN(std::string_view seq, json::as_string(el, p));
        stop_sequence_.assign(seq);
      }
    }
    if (json::get(obj, "usage", el)) {
      const Path upath(path, "usage");
      ir::Usage usage;
      TW_TRY(decode_usage(el, upath, usage));
      if (!usage.empty()) out.push_back(ir::UsageEvent{usage});
    }
    return Status::Ok();
  }

  Status on_error(json::object obj, const Path& path, std::vector<ir::StreamEvent>& out) {
    const Path epath(path, "error");
    TW_ASSIGN(json::element err_el, json::required(obj, "error", path));
    TW_ASSIGN(json::object err, json::as_object(err_el, epath));
    ir::ErrorEvent event;
    json::element el;
    if (json::get(err, "type", el)) {
      const Path p(epath, "type");
      TW_ASSIGN(std::string_view type, json::as_string(el, p));
      event.type.assign(type);
    }
    if (json::get(err, "message", el)) {
      const Path p(epath, "message");
      TW_ASSIGN(std::string_view message, json::as_string(el, p));
      event.message.assign(message);
    }
    out.push_back(std::move(event));
    done_ = true;
    return Status::Ok();
  }

  // The block's path in the whole response, where its loss is warned.
  static std::string content_path(int64_t index) {
    return "$.content[" + std::to_string(index) + "]";
  }

  simdjson::dom::parser parser_;
  BlockTable blocks_;
  std::string stop_reason_;
  std::string stop_sequence_;
  int next_tool_ = 0;
  bool saw_tool_ = false;
};

}  // namespace

std::unique_ptr<StreamDecoder> make_stream_decoder() { return std::make_unique<Decoder>(); }

}  // namespace toolwire::dialects::anthropic_messages
