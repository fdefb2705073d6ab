// toolwire/textformats/summary.h — a parse folded into one result, and the one-call form.
//
//   ParseSummary s = parse_text("hermes", output, &tools).value();
//   s.content; s.reasoning; s.tool_calls[0].arguments; s.errors
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "toolwire/core/result.h"
#include "toolwire/textformats/parser.h"

namespace toolwire::textformats {

struct ParsedCall {
  int index = 0;
  std::string id;  // empty when the format carries none
  std::string name;
  std::string arguments;  // JSON text
  bool complete = false;  // ToolCallEnd seen
  bool operator==(const ParsedCall&) const = default;
};

struct ParseSummary {
  std::string content;
  std::string reasoning;
  std::vector<ParsedCall> tool_calls;  // complete and incomplete, by index
  std::vector<FormatError> errors;
  bool operator==(const ParseSummary&) const = default;
};

ParseSummary summarize(const ParseOutput& out);

// Feeds `text` in one piece and finishes.
Result<ParseSummary> parse_text(std::string_view family, std::string_view text,
                                const ToolSet* tools = nullptr);

// {"content","reasoning","tool_calls":[{"id"?,"name","arguments"}],"errors":[...]}:
// only complete calls are listed (the others are in errors); arguments are
// spliced as JSON.
std::string to_json(const ParseSummary& s);

// One stream event as a JSON line's object ({"type":"text_delta","text":...}).
std::string event_to_json(const ir::StreamEvent& e);
std::string error_to_json(const FormatError& e);

}  // namespace toolwire::textformats
