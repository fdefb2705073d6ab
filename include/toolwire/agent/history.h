// toolwire/agent/history.h — rules that keep a conversation valid.
//
// Upstreams reject a history where a tool call has no result, a result has no
// call, or a tool result comes first. These helpers check that and cut a
// window of recent turns that keeps it true:
//
//   size_t start = agent::window_start(history, /*max_turns=*/4);
//   std::vector<ir::Message> sent(history.begin() + start, history.end());
//   assert(agent::check_history(sent).ok());
#pragma once

#include <cstddef>
#include <vector>

#include "toolwire/core/result.h"
#include "toolwire/ir/message.h"

namespace toolwire::agent {

// OK when every tool call has exactly one result in a later tool message,
// every result answers an earlier unanswered call, and the first message is
// not a tool message. `allow_open_calls`: the last assistant message may
// still wait for its results (a loop in the middle of a round).
Status check_history(const std::vector<ir::Message>& messages, bool allow_open_calls = false);

// The index of the first message of the last `max_turns` turns, a turn being
// a user message and everything up to the next one. A cut at a user message
// never separates a call from its result and never leaves a result first.
// 0 when max_turns is 0 (no window) or the history has no more turns.
size_t window_start(const std::vector<ir::Message>& messages, size_t max_turns);

}  // namespace toolwire::agent
