// stream_decoder_base.h — what every stream decoder does around its framing
// (an SseParser or an EventStreamParser handing each complete event to the
// decoder, its `Sink`): feed()'s output kept for the sink's calls, a failed
// stream staying failed, and input that ends before the stream's last event
// reported as an error.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "dialects/common/json_in.h"
#include "toolwire/dialects/codec.h"

namespace toolwire::dialects {

// `Derived` provides:
// - `static constexpr bool kKeepsError`: a call after a failure returns the
//   failure again (else a "stream already failed" parse error);
// - `static constexpr bool kIgnoresAfterDone`: bytes after the last event are
//   not framed at all;
// - `Error ended_early() const`: the error for input that ends before the
//   stream's last event (done_ not set).
template <class Derived, class Framing, class Sink>
class StreamDecoderBase : public StreamDecoder, protected Sink {
 public:
  Status feed(std::string_view bytes, std::vector<ir::StreamEvent>& out) override {
    if (failed_) return failure();
    if (Derived::kIgnoresAfterDone && done_) return Status::Ok();
    out_ = &out;
    Status st = framing_.feed(bytes, static_cast<Sink&>(*this));
    if (!st) return fail(st.error());
    return st;
  }

  Status finish(std::vector<ir::StreamEvent>&) override {
    if (failed_) return failure();
    if (done_) return Status::Ok();
    return fail(static_cast<const Derived*>(this)->ended_early());
  }

  const Warnings& warnings() const override { return warnings_; }

 protected:
  // A loss, noted once per code and path: a member that repeats in every
  // chunk (Gemini's `safetyRatings`) gives one warning, not one a chunk.
  void note(std::string_view code, std::string_view path, std::string_view message) {
    if (std::any_of(warnings_.begin(), warnings_.end(),
                    [&](const Warning& w) { return w.code == code && w.path == path; }))
      return;
    warnings_.push_back(Warning{std::string(code), std::string(path), std::string(message)});
  }

  Status fail(Error e) {
    failed_ = true;
    if constexpr (Derived::kKeepsError) error_ = e;
    return e;
  }
  Status failure() const {
    if constexpr (Derived::kKeepsError) return error_;
    return make_error(ErrorCode::parse_error, "stream already failed");
  }

  Framing framing_;
  std::vector<ir::StreamEvent>* out_ = nullptr;  // feed()'s output, for the sink's calls
  bool done_ = false;                            // the stream's last event was decoded
  bool failed_ = false;
  Warnings warnings_;

 private:
  Error error_;
};

// A fast path's delta (dialects/common/literal_match.h): text, a call's
// arguments, or else thinking.
inline void push_delta(bool is_text, bool is_arguments, int tool_index, std::string_view body,
                       std::vector<ir::StreamEvent>& out) {
  if (is_text)
    out.push_back(ir::TextDelta{std::string(body)});
  else if (is_arguments)
    out.push_back(ir::ToolCallDelta{tool_index, std::string(body)});
  else
    out.push_back(ir::ThinkingDelta{std::string(body), {}, false});
}

// `st` with its error's message prefixed by "in '<type>' event: ".
inline Status in_event(std::string_view type, Status st) {
  if (st) [[likely]]
    return st;
  Error e = st.error();
  e.message = "in '" + std::string(type) + "' event: " + e.message;
  return e;
}

// An event's JSON `root`, which must be an object, to `dispatch(type, obj,
// path)`: its type is the object's "type" string, else `type` (the framing's
// event name). Errors name the type (in_event).
template <class Dispatch>
Status dispatch_typed_event(json::element root, std::string_view type, Dispatch&& dispatch) {
  const json::Path path;
  json::object obj;
  if (root.get_object().get(obj)) return in_event(type, json::as_object(root, path).error());
  json::element type_el;
  std::string_view named;
  if (json::get(obj, "type", type_el) && !type_el.get_string().get(named)) type = named;
  return in_event(type, dispatch(type, obj, path));
}

}  // namespace toolwire::dialects
