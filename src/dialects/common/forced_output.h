// forced_output.h — JSON output for a target that cannot ask for it natively
// (Anthropic and Bedrock have no JSON mode, and their JSON schema format
// takes a subset of JSON Schema): the "forced tool" technique. The request gains a tool,
// ir::kForcedOutputTool, whose input schema is the wanted shape, and a tool choice that makes the
// model call it; the call's arguments are the answer. On the way back the
// target's decoders turn that call into text (whole answers and streams), so
// the caller sees content and finish reason stop, never the tool.
//
// Tool choice when the caller sent tools of its own (docs/translation.md):
// none or no tools → the answer tool is forced; a named tool → kept (that
// turn calls it); auto, required or unset → required (any tool: one of the
// caller's, or the answer tool), with a warning.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "dialects/common/borrowed_ir.h"
#include "dialects/common/constrained_schema.h"
#include "dialects/common/style.h"
#include "toolwire/dialects/codec.h"
#include "toolwire/ir/request.h"
#include "toolwire/ir/stream.h"

namespace toolwire::dialects {

// JSON mode always; from another dialect, a JSON schema that constrained
// decoding does not take (constrained_schema.h). A schema of the target's own
// callers is theirs to fit.
template <class S>
bool needs_forced_output(const ir::BasicRequest<S>& req, bool same_dialect) {
  if (!req.response_format) return false;
  const auto& rf = *req.response_format;
  if (rf.kind == ir::ResponseFormatKind::json_object) return true;
  return rf.kind == ir::ResponseFormatKind::json_schema && !same_dialect &&
         !std::string_view(rf.schema).empty() && !fits_constrained_decoding(rf.schema);
}

// A copy of `req` with the answer tool and its tool choice, and no response
// format. A caller tool with the reserved name is refused.
template <class S>
Result<ir::BasicRequest<S>> with_forced_output(const ir::BasicRequest<S>& req, Warnings& warnings) {
  using Kind = ir::ToolChoiceKind;
  const json::Path root;
  for (const auto& t : req.tools)
    if (std::string_view(t.name) == ir::kForcedOutputTool)
      return make_error(
          ErrorCode::invalid_argument,
          "the tool name '" + std::string(ir::kForcedOutputTool) + "' is reserved by toolwire",
          json::Path(root, "tools").str());
  ir::BasicRequest<S> out = req;
  const auto& rf = *req.response_format;
  if (rf.kind == ir::ResponseFormatKind::json_schema)
    warn(warnings, "response_format_as_tool", json::Path(root, "response_format"),
         "the schema is outside what the target's structured output takes (additionalProperties: "
         "false on every object, no numeric or length bounds, no oneOf...): asked for as a "
         "forced tool's input instead");
  ir::BasicToolDefinition<S> tool;
  tool.name = ir::kForcedOutputTool;
  tool.description = std::string_view(rf.description).empty()
                         ? "Give your final answer as this tool's input: a JSON object."
                         : rf.description;
  tool.input_schema = std::string_view(rf.schema).empty() ? R"({"type":"object"})" : rf.schema;
  const bool own_tools = !req.tools.empty();
  out.tools.push_back(std::move(tool));
  out.response_format.reset();
  const Kind kind = req.tool_choice ? req.tool_choice->kind : Kind::auto_;
  if (!own_tools || kind == Kind::none) {
    out.tool_choice = ir::BasicToolChoice<S>{Kind::tool, typename S::String(ir::kForcedOutputTool)};
  } else if (kind != Kind::tool) {
    out.tool_choice = ir::BasicToolChoice<S>{Kind::required, {}};
    warn(warnings, "response_format_beside_tools", json::Path(root, "tool_choice"),
         "JSON output is asked of a forced answer tool beside the request's own tools: the "
         "model must call a tool (one of them, or the answer tool)");
  }
  return out;
}

// A whole answer: a call of the answer tool becomes a text part; with no call
// left the finish reason is stop.
void unwrap_forced_output(ir::Response& response);

// The same for a stream, event by event: the answer tool's start and end
// are dropped, its argument deltas become text deltas, later calls' indexes
// close the gap, and a tool_calls finish with no other call becomes stop.
class ForcedOutputUnwrapper {
 public:
  // Rewrites events[from..] in place.
  void apply(std::vector<ir::StreamEvent>& events, size_t from);

 private:
  int forced_index_ = -1;  // the answer tool's call index; -1: none yet
  bool other_calls_ = false;
};

// A stream decoder whose events go through a ForcedOutputUnwrapper.
std::unique_ptr<StreamDecoder> unwrapping(std::unique_ptr<StreamDecoder> inner);

// Codec function adapters (codec_adapter.h's CodecFunctions) for a folder
// whose encoder may force the answer tool.
template <Result<ir::Response> (*Decode)(std::string_view, Warnings&)>
Result<ir::Response> decode_response_unwrapped(std::string_view json, Warnings& warnings) {
  TW_ASSIGN(ir::Response r, Decode(json, warnings));
  unwrap_forced_output(r);
  return r;
}
template <std::unique_ptr<StreamDecoder> (*Make)()>
std::unique_ptr<StreamDecoder> make_stream_decoder_unwrapped() {
  return unwrapping(Make());
}

}  // namespace toolwire::dialects
