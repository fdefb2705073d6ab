// toolwire/textformats/parser.h — tool calls written as text, parsed as they stream.
//
// Models without a native function-calling API write their calls in a
// family-specific markup (`<tool_call>{...}</tool_call>`, `[TOOL_CALLS]...`,
// special tokens). A TextFormatParser is fed the model's output in deltas of
// any size and emits the IR stream events (ir/stream.h) a native API would
// have sent: TextDelta, ThinkingDelta, ToolCallStart / ToolCallDelta /
// ToolCallEnd. Problems that do not stop the parse (a call cut off by the end
// of output, arguments that are not JSON, an unknown tool, arguments that fail
// the tool's schema) are reported as FormatErrors next to the events.
//
//   auto p = make_parser("hermes", &tools);        // Result<unique_ptr<...>>
//   ParseOutput out;
//   for (auto delta : deltas) (*p)->feed(delta, out);
//   (*p)->finish(out);
//
// Guarantees, for every family:
//   - linear time: each byte is looked at a bounded number of times; only what
//     could still be the start of a marker (or an unfinished call) is held;
//   - the events do not depend on how the output was split into deltas
//     (adjacent deltas of one kind may be cut differently; their
//     concatenation is the same), so a final parse equals the streamed one;
//   - ToolCallEnd is emitted only for a call whose arguments are a complete
//     JSON object; a call cut off by the end of output gets a FormatError and
//     no ToolCallEnd (never run it). Schema violations and unknown tools are
//     reported but the call still ends (the caller decides; the agent loop
//     feeds the error back to the model);
//   - no call markup ever reaches TextDelta.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "toolwire/core/result.h"
#include "toolwire/ir/stream.h"

namespace toolwire::textformats {

class ToolSet;

struct FormatError {
  int call_index = -1;  // the call it concerns, -1 for none
  std::string message;
  bool operator==(const FormatError&) const = default;
};

// What a parser appends to, in order.
struct ParseOutput {
  std::vector<ir::StreamEvent> events;
  std::vector<FormatError> errors;
};

class TextFormatParser {
 public:
  virtual ~TextFormatParser() = default;
  // One piece of the model's output (any size, may split UTF-8 sequences
  // and markers).
  virtual void feed(std::string_view delta, ParseOutput& out) = 0;
  // The end of output: emits what was held back and reports unfinished calls.
  // Feeding after finish() is a bug.
  virtual void finish(ParseOutput& out) = 0;
};

struct ParserOptions {
  // The prompt ended inside the family's reasoning block (a generation
  // prompt that opens `<think>`, as Qwen3 thinking models' and DeepSeek-V3.1's
  // thinking mode do): the output starts as reasoning until the block's end.
  bool reasoning_open = false;
};

// The families, in the order docs/textformats.md lists them.
std::span<const std::string_view> families();

// A parser for `family`; `tools` (may be null, must outlive the parser) types
// values where the markup carries strings and validates arguments.
// not_found for an unknown family.
Result<std::unique_ptr<TextFormatParser>> make_parser(std::string_view family,
                                                      const ToolSet* tools = nullptr,
                                                      ParserOptions options = {});

}  // namespace toolwire::textformats
