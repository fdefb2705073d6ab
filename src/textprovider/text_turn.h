// One answer's text parsed into calls as it streams, shared by the chat
// wrapper and the completion provider. Calls are held until they end (a call
// cut off or malformed is dropped, never handed on) and renumbered in the
// order they are handed on; the upstream's Finish is held until the end and
// becomes `tool_calls` when a call was handed on.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "toolwire/core/warnings.h"
#include "toolwire/ir/accumulator.h"
#include "toolwire/ir/stream.h"
#include "toolwire/provider/provider.h"
#include "toolwire/textformats/parser.h"
#include "toolwire/textformats/tool_set.h"

namespace toolwire::textprovider {

class TextTurn {
 public:
  // `tools` (may be empty) checks and types the calls.
  TextTurn(std::unique_ptr<textformats::TextFormatParser> parser,
           std::shared_ptr<const textformats::ToolSet> tools, provider::EventCallback on_event)
      : parser_(std::move(parser)), tools_(std::move(tools)), on_event_(std::move(on_event)) {}

  // One upstream event: text is parsed, a Finish held, tool calls (the
  // upstream was given no tools) ignored, the rest handed on.
  void upstream(const ir::StreamEvent& e);
  void text(std::string_view s);
  // The end of the answer: what the parser held, then the Finish.
  void finish();

  ir::Response take_response() && { return std::move(acc_).take(); }
  Warnings take_warnings() && { return std::move(warnings_); }

 private:
  void drain();
  void emit(const ir::StreamEvent& e);
  const std::string& id_prefix();

  std::unique_ptr<textformats::TextFormatParser> parser_;
  std::shared_ptr<const textformats::ToolSet> tools_;
  provider::EventCallback on_event_;
  textformats::ParseOutput out_;
  ir::StreamAccumulator acc_;
  std::map<int, std::vector<ir::StreamEvent>> held_;  // parser index → events of an open call
  int next_index_ = 0;
  std::optional<ir::Finish> finish_;
  Warnings warnings_;
  std::string id_prefix_;  // call_<random>_ for calls the format gave no id
};

}  // namespace toolwire::textprovider
