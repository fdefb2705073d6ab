// ConverseStream bytes (application/vnd.amazon.eventstream, any chunking)
// → IR stream events.
//
// The framing is the event-stream parser's (toolwire/dialects/framing/eventstream.h):
// CRCs and lengths checked, one message handed over as it completes, its
// JSON payload parsed once. Deltas are forwarded at once. Bedrock reports
// usage (`metadata`) after `messageStop`; the IR wants Finish last, so the
// finish waits for the metadata event, or for the end of the input.
#include <unordered_map>

#include "dialects/bedrock_converse/wire.h"
#include "dialects/common/call_id.h"
#include "dialects/common/literal_match.h"
#include "dialects/common/stream_decoder_base.h"
#include "toolwire/dialects/framing/eventstream.h"

namespace toolwire::dialects::bedrock_converse {
namespace {

using json::Path;

class Decoder final : public StreamDecoderBase<Decoder, EventStreamParser, EventStreamSink> {
  using Base = StreamDecoderBase<Decoder, EventStreamParser, EventStreamSink>;

 public:
  static constexpr bool kKeepsError = false;
  static constexpr bool kIgnoresAfterDone = false;
  Error ended_early() const {
    return make_error(ErrorCode::parse_error,
                      framing_.has_partial_message()
                          ? "stream ended inside an event-stream message, before messageStop"
                          : "stream ended before messageStop");
  }

  Status finish(std::vector<ir::StreamEvent>& out) override {
    if (!failed_ && !done_ && stopped_ && !framing_.has_partial_message()) {
      // No metadata event: finish anyway.
      out.push_back(ir::Finish{decode_stop_reason(stop_reason_, saw_tool_)});
      done_ = true;
    }
    return Base::finish(out);
  }

 private:
  enum class Kind { text, reasoning, tool, other };
  struct BlockState {
    Kind kind;
    int tool_index;
  };
  // Blocks by index: a vector for the small indexes real streams use (one
  // lookup per delta), a map for anything a hostile stream sends.
  class BlockTable {
   public:
    BlockState* find(int64_t index) {
      if (index >= 0 && index < kDense) {
        const size_t i = static_cast<size_t>(index);
        return i < dense_.size() && dense_[i].tool_index != kNone ? &dense_[i] : nullptr;
      }
      auto it = sparse_.find(index);
      return it == sparse_.end() ? nullptr : &it->second;
    }
    BlockState& add(int64_t index, BlockState block) {
      if (index >= 0 && index < kDense) {
        const size_t i = static_cast<size_t>(index);
        if (i >= dense_.size()) dense_.resize(i + 1, BlockState{Kind::other, kNone});
        return dense_[i] = block;
      }
      return sparse_[index] = block;
    }

   private:
    static constexpr int64_t kDense = 256;
    static constexpr int kNone = -2;  // an unused dense slot (tool_index is -1 or >= 0)
    std::vector<BlockState> dense_;
    std::unordered_map<int64_t, BlockState> sparse_;
  };

  // EventStreamSink: each message as it completes.
  Status on_message(const EventStreamMessageView& m) override {
    if (done_) return Status::Ok();  // after the metadata or an exception: ignored
    // The two headers every message has, in one pass (the first of each
    // name, as m.header() reads them).
    std::string_view message_type, type;
    bool have_message_type = false, have_type = false;
    for (const EventStreamHeaderView& h : m.headers) {
      if (h.type != HeaderType::string) continue;
      if (!have_message_type && h.name == ":message-type") {
        message_type = h.text;
        have_message_type = true;
      } else if (!have_type && h.name == ":event-type") {
        type = h.text;
        have_type = true;
      }
    }
    if (message_type == "exception") return on_exception(m);
    if (message_type == "error") {
      out_->push_back(ir::ErrorEvent{std::string(m.header(":error-code")),
                                     std::string(m.header(":error-message"))});
      done_ = true;
      return Status::Ok();
    }
    // An event without :message-type (only :event-type) is read as an event.
    if (message_type != "event" && !(message_type.empty() && !type.empty()))
      return make_error(ErrorCode::parse_error, "event-stream message with :message-type '" +
                                                    std::string(message_type) +
                                                    "' (expected event, exception or error)");
    if (type == "contentBlockDelta" && fast_delta(m.payload, *out_)) return Status::Ok();
    // simdjson wants padding after the text: parse from a padded copy.
    json::element root;
    if (parser_json_.parse(m.payload.data(), m.payload.size(), true).get(root)) {
      return in_event(type, json::parse(parser_json_, m.payload).error());
    }
    const Path path;
    Status st;
    if (!root.is_object()) {
      st = json::as_object(root, path).error();
    } else {
      st = dispatch(type, root.get_object().value_unsafe(), path, *out_);
    }
    return in_event(type, std::move(st));
  }

  // Most of a stream is contentBlockDelta events in the layout Bedrock (and
  // toolwire's encoder) write:
  //   {"contentBlockIndex":N,"delta":{"text":"..."}}            (text)
  //   {"contentBlockIndex":N,"delta":{"toolUse":{"input":"..."}}} (arguments)
  //   {"contentBlockIndex":N,"delta":{"reasoningContent":{"text":"..."}}}
  // optionally followed by Bedrock's padding member ,"p":"...". One whose
  // string has no \u escapes, for a started block of the matching kind, is
  // decoded here by comparing literal pieces, without a DOM; anything else
  // returns false and takes the full path, which also words every error.
  bool fast_delta(std::string_view d, std::vector<ir::StreamEvent>& out) {
    constexpr std::string_view kHead = R"({"contentBlockIndex":)";
    constexpr std::string_view kDelta = R"(,"delta":{)";
    struct Form {
      std::string_view head, tail;
      Kind kind;
    };
    static constexpr Form kForms[] = {
        {R"("text":")", R"("})", Kind::text},
        {R"("toolUse":{"input":")", R"("}})", Kind::tool},
        {R"("reasoningContent":{"text":")", R"("}})", Kind::reasoning}};
    if (!d.ends_with("}")) return false;
    size_t i;
    int64_t index;
    const Form* form = json::match_block_delta(d, kHead, kDelta, kForms, i, index);
    if (!form) return false;
    std::string_view text;
    if (!json::simple_string(d, i, scratch_, text)) return false;
    if (d.substr(i, form->tail.size()) != form->tail) return false;
    i += form->tail.size();
    constexpr std::string_view kPad = R"(,"p":")";
    if (d.substr(i, kPad.size()) == kPad) {
      i += kPad.size();
      const size_t end = d.find('"', i);
      if (end == std::string_view::npos || !json::plain_string_body(d.substr(i, end - i)))
        return false;
      i = end + 1;
    }
    if (i + 1 != d.size()) return false;
    const BlockState* block = blocks_.find(index);
    if (!block || block->kind != form->kind) return false;
    if (text.empty()) return true;
    push_delta(form->kind == Kind::text, form->kind == Kind::tool, block->tool_index, text, out);
    return true;
  }

  Status on_exception(const EventStreamMessageView& m) {
    ir::ErrorEvent event;
    event.type.assign(m.header(":exception-type"));
    json::element root, el;
    json::object obj;
    std::string_view text;
    if (!parser_json_.parse(m.payload.data(), m.payload.size(), true).get(root) &&
        !root.get_object().get(obj)) {
      if (json::get(obj, "message", el) && !el.get_string().get(text)) event.message.assign(text);
      // toolwire's encoder keeps another dialect's error type here.
      if (json::get(obj, "originalErrorType", el) && !el.get_string().get(text))
        event.type.assign(text);
    } else {
      event.message.assign(m.payload.substr(0, 4096));
    }
    out_->push_back(std::move(event));
    done_ = true;
    return Status::Ok();
  }

  Status dispatch(std::string_view type, json::object obj, const Path& path,
                  std::vector<ir::StreamEvent>& out) {
    if (type == "contentBlockDelta") return on_delta(obj, path, out);
    if (type == "contentBlockStart") return on_block_start(obj, path, out);
    if (type == "contentBlockStop") return on_block_stop(obj, path, out);
    if (type == "messageStart") return on_message_start(obj, path, out);
    if (type == "messageStop") return on_message_stop(obj, path);
    if (type == "metadata") return on_metadata(obj, path, out);
    return Status::Ok();  // event types added later
  }

  Status on_message_start(json::object obj, const Path& path, std::vector<ir::StreamEvent>& out) {
    json::element el;
    if (json::get(obj, "role", el)) {
      const Path p(path, "role");
      TW_ASSIGN(std::string_view role, json::as_string(el, p));
      if (role != "assistant")
        return json::invalid(p, "expected 'assistant', got '" + std::string(role) + "'");
    }
    out.push_back(ir::MessageStart{});
    return Status::Ok();
  }

  Result<int64_t> block_index(json::object obj, const Path& path) {
    const Path ipath(path, "contentBlockIndex");
    TW_ASSIGN(json::element el, json::required(obj, "contentBlockIndex", path));
    return json::as_int64(el, ipath);
  }

  Status on_block_start(json::object obj, const Path& path, std::vector<ir::StreamEvent>& out) {
    TW_ASSIGN(int64_t index, block_index(obj, path));
    if (blocks_.find(index))
      return json::invalid(Path(path, "contentBlockIndex"),
                           "content block " + std::to_string(index) + " started twice");
    const Path spath(path, "start");
    TW_ASSIGN(json::element start_el, json::required(obj, "start", path));
    TW_ASSIGN(Block b, block_of(start_el, spath));
    if (b.kind != "toolUse") {  // kinds added later: not in the IR
      blocks_.add(index, BlockState{Kind::other, -1});
      note("dropped_unknown_part", content_path(index),
           "a '" + std::string(b.kind) + "' block has no stream event; the stream drops it");
      return Status::Ok();
    }
    const Path tpath(spath, "toolUse");
    TW_ASSIGN(json::object tool, json::as_object(b.value, tpath));
    TW_ASSIGN(json::element id_el, json::required(tool, "toolUseId", tpath));
    TW_ASSIGN(std::string_view id, json::as_string(id_el, Path(tpath, "toolUseId")));
    TW_ASSIGN(json::element name_el, json::required(tool, "name", tpath));
    TW_ASSIGN(std::string_view name, json::as_string(name_el, Path(tpath, "name")));
    const int tool_index = next_tool_++;
    blocks_.add(index, BlockState{Kind::tool, tool_index});
    saw_tool_ = true;
    out.push_back(ir::ToolCallStart{tool_index, call_id::from_anthropic(id), std::string(name)});
    return Status::Ok();
  }

  Status on_delta(json::object obj, const Path& path, std::vector<ir::StreamEvent>& out) {
    TW_ASSIGN(int64_t index, block_index(obj, path));
    const Path dpath(path, "delta");
    TW_ASSIGN(json::element delta_el, json::required(obj, "delta", path));
    TW_ASSIGN(Block d, block_of(delta_el, dpath));
    const Path vpath(dpath, d.kind);
    Kind kind;
    if (d.kind == "text")
      kind = Kind::text;
    else if (d.kind == "toolUse")
      kind = Kind::tool;
    else if (d.kind == "reasoningContent")
      kind = Kind::reasoning;
    else {  // citation and delta kinds added later: not in the IR
      if (d.kind == "citation")
        note("dropped_unknown_field", content_path(index) + ".citationsContent",
             "citations have no stream event; the stream drops them");
      else
        note("dropped_unknown_part", content_path(index),
             "a '" + std::string(d.kind) + "' delta has no stream event; the stream drops it");
      return Status::Ok();
    }
    BlockState* block = blocks_.find(index);
    if (!block) {
      // Text and reasoning blocks start with their first delta.
      if (kind == Kind::tool)
        return json::invalid(Path(path, "contentBlockIndex"),
                             "toolUse delta for content block " + std::to_string(index) +
                                 ", which no contentBlockStart opened");
      block = &blocks_.add(index, BlockState{kind, -1});
    } else if (block->kind != kind) {
      return json::invalid(vpath,
                           "'" + std::string(d.kind) + "' does not fit the block it is sent to");
    }
    if (kind == Kind::text) {
      TW_ASSIGN(std::string_view text, json::as_string(d.value, vpath));
      if (!text.empty()) out.push_back(ir::TextDelta{std::string(text)});
    } else if (kind == Kind::tool) {
      TW_ASSIGN(json::object tool, json::as_object(d.value, vpath));
      TW_ASSIGN(json::element input_el, json::required(tool, "input", vpath));
      TW_ASSIGN(std::string_view input, json::as_string(input_el, Path(vpath, "input")));
      if (!input.empty()) out.push_back(ir::ToolCallDelta{block->tool_index, std::string(input)});
    } else {
      TW_ASSIGN(Block r, block_of(d.value, vpath));
      const Path rpath(vpath, r.kind);
      if (r.kind == "text") {
        TW_ASSIGN(std::string_view text, json::as_string(r.value, rpath));
        if (!text.empty()) out.push_back(ir::ThinkingDelta{std::string(text), {}, false});
      } else if (r.kind == "signature") {
        TW_ASSIGN(std::string_view sig, json::as_string(r.value, rpath));
        if (!sig.empty()) out.push_back(ir::ThinkingDelta{{}, std::string(sig), false});
      } else if (r.kind == "redactedContent") {
        TW_ASSIGN(std::string_view data, json::as_string(r.value, rpath));
        out.push_back(ir::ThinkingDelta{std::string(data), {}, true});
      }
    }
    return Status::Ok();
  }

  Status on_block_stop(json::object obj, const Path& path, std::vector<ir::StreamEvent>& out) {
    TW_ASSIGN(int64_t index, block_index(obj, path));
    const BlockState* block = blocks_.find(index);
    // A text block that never had a delta is stopped without a start: fine.
    if (block && block->kind == Kind::tool) out.push_back(ir::ToolCallEnd{block->tool_index});
    return Status::Ok();
  }

  Status on_message_stop(json::object obj, const Path& path) {
    json::element el;
    if (json::get(obj, "stopReason", el)) {
      TW_ASSIGN(std::string_view reason, json::as_string(el, Path(path, "stopReason")));
      stop_reason_.assign(reason);
    }
    if (json::get(obj, "additionalModelResponseFields", el) && !el.is_null())
      note("dropped_unknown_field", "$.additionalModelResponseFields",
           "field 'additionalModelResponseFields' has no stream event; the stream drops it");
    stopped_ = true;
    return Status::Ok();
  }

  // The block's path in the whole response, where its loss is warned.
  static std::string content_path(int64_t index) {
    return "$.output.message.content[" + std::to_string(index) + "]";
  }

  Status on_metadata(json::object obj, const Path& path, std::vector<ir::StreamEvent>& out) {
    json::element el;
    if (json::get(obj, "usage", el)) {
      ir::Usage usage;
      TW_TRY(decode_usage(el, Path(path, "usage"), usage));
      if (!usage.empty()) out.push_back(ir::UsageEvent{usage});
    }
    // metrics, trace, performanceConfig, serviceTier: the whole response
    // keeps them same-dialect; no stream event carries them. (`p` is the
    // service's padding: nothing to carry.)
    for (auto [key, value] : obj)
      if (key != "usage" && key != "p" && !value.is_null())
        note("dropped_unknown_field", "$." + std::string(key),
             "field '" + std::string(key) + "' has no stream event; the stream drops it");
    if (stopped_) {
      out.push_back(ir::Finish{decode_stop_reason(stop_reason_, saw_tool_)});
      done_ = true;
    }
    return Status::Ok();
  }

  simdjson::dom::parser parser_json_;
  std::string scratch_;  // a delta's unescaped text
  BlockTable blocks_;
  std::string stop_reason_;
  int next_tool_ = 0;
  bool saw_tool_ = false;
  bool stopped_ = false;  // messageStop seen; Finish waits for the metadata
};

}  // namespace

std::unique_ptr<StreamDecoder> make_stream_decoder() { return std::make_unique<Decoder>(); }

}  // namespace toolwire::dialects::bedrock_converse
