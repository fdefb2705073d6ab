// toolwire/ir/accumulator.h — folds a stream of IR events into a Response.
//
// What SDK "stream helpers" do, once, over the IR: text deltas concatenate into
// text parts, tool call fragments concatenate per index (interleaved parallel
// calls stay apart), usage fields merge, Finish sets the finish reason. What
// the events carry besides (their raw extras, Chat logprobs, the stop
// sequence) becomes the response's `extra` as the whole response's decoder
// keeps it, and the dialect that decoded them its `source_dialect`.
//
//   StreamAccumulator acc;
//   for (auto& e : events) acc.add(e);
//   ir::Response r = std::move(acc).take();
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "toolwire/ir/response.h"
#include "toolwire/ir/stream.h"

namespace toolwire::ir {

class StreamAccumulator {
 public:
  void add(const StreamEvent& event);

  bool finished() const { return finished_; }
  const std::optional<ErrorEvent>& error() const { return error_; }

  // The response so far; tool call arguments are checked for JSON validity.
  Response take() &&;

 private:
  void add_logprobs(const TextDelta& e);
  enum class Open { none, text, thinking, refusal };
  Response response_;
  // Refusal parts (UnknownPart, raw JSON made at take()) and their text so far.
  std::vector<std::pair<size_t, std::string>> refusals_;
  std::map<int, size_t> call_part_;  // tool call index → position in parts
  // Chat logprobs so far: the entries of `content` and of `refusal`, raw.
  std::string logprobs_content_, logprobs_refusal_;
  bool has_logprobs_ = false;
  Open open_ = Open::none;
  bool finished_ = false;
  std::optional<ErrorEvent> error_;
};

}  // namespace toolwire::ir
