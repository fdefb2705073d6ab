// Bedrock Converse request JSON → IR request. Written once for both IR
// policies (IrText<S>: copies for the owning IR, views for translate_request's
// borrowed one). The body names no model (it is in the URL path): the IR's
// model stays empty, for the caller to fill in from the path.
#include "dialects/bedrock_converse/structured_output.h"
#include "dialects/bedrock_converse/wire.h"
#include "dialects/common/call_id.h"
#include "dialects/common/placed_member.h"
#include "dialects/common/request_fields.h"
#include "dialects/common/sampling.h"
#include "dialects/common/source_map.h"
#include "dialects/common/tool_schema.h"
#include "dialects/common/user_assistant_messages.h"
#include "toolwire/dialects/tool_rules.h"

namespace toolwire::dialects::bedrock_converse {
namespace {

using json::Path;

// Text, image, or a block kept verbatim: what user messages and tool results
// share. Returns false for toolUse / toolResult / reasoningContent.
template <class S, class Contents>
Result<bool> decode_plain_block(json::element block, const Block& b, const Path& path,
                                Contents& out) {
  using T = IrText<S>;
  const Path vpath(path, b.kind);
  if (b.kind == "text") {
    TW_ASSIGN(std::string_view text, json::as_string(b.value, vpath));
    if (!text.empty()) out.push_back(ir::BasicTextPart<S>{T::keep(text)});
    return true;
  }
  if (b.kind == "image") {
    ir::BasicImagePart<S> image;
    TW_ASSIGN(bool decoded, decode_image<S>(b.value, vpath, image));
    if (decoded) {
      out.push_back(std::move(image));
      return true;
    }
  } else if (b.kind == "toolUse" || b.kind == "toolResult" || b.kind == "reasoningContent") {
    return false;
  }
  out.push_back(
      ir::BasicUnknownPart<S>{typename S::String(kDialect), T::keep(b.kind), T::raw_json(block)});
  return true;
}

template <class S>
Status decode_tool_result(json::element value, const Path& path, const SeenCallIds& seen,
                          ir::BasicToolResultPart<S>& out) {
  using T = IrText<S>;
  TW_ASSIGN(json::object obj, json::as_object(value, path));
  enum { kId, kContent, kStatus };
  static constexpr std::string_view kKeys[] = {"toolUseId", "content", "status"};
  const auto f = json::pick(obj, kKeys);
  const Path id_path(path, "toolUseId");
  TW_ASSIGN(json::element id_el, f.need(kId, "toolUseId", path));
  TW_ASSIGN(std::string_view id, json::as_string(id_el, id_path));
  if (id.empty()) return json::invalid(id_path, "toolUseId must not be empty");
  if (!seen.contains(id))
    return json::invalid(id_path, "no earlier toolUse block has id '" + std::string(id) + "'");
  std::string scratch;
  const std::string_view native = call_id::from_anthropic(id, scratch);
  out.call_id = native.data() == id.data() ? T::keep(id) : T::made(std::move(scratch));
  const Path content_path(path, "content");
  TW_ASSIGN(json::element content_el, f.need(kContent, "content", path));
  TW_ASSIGN(json::array blocks, json::as_array(content_el, content_path));
  size_t i = 0;
  for (json::element inner : blocks) {
    const Path inner_path(content_path, i++);
    TW_ASSIGN(Block b, block_of(inner, inner_path));
    if (b.kind == "json") {
      // The IR's result content is text: a JSON result travels as its text.
      out.content.push_back(ir::BasicTextPart<S>{T::raw_json(b.value)});
      continue;
    }
    TW_ASSIGN(bool ok, decode_plain_block<S>(inner, b, inner_path, out.content));
    if (!ok)
      return json::invalid(
          Path(inner_path, b.kind),
          "'" + std::string(b.kind) + "' blocks are not allowed in toolResult content");
  }
  if (f.has[kStatus]) {
    const Path status_path(path, "status");
    TW_ASSIGN(std::string_view status, json::as_string(f.e[kStatus], status_path));
    if (status == "error")
      out.is_error = true;
    else if (status != "success")
      return json::invalid(status_path, "unknown toolResult status '" + std::string(status) +
                                            "' (expected success or error)");
  }
  return Status::Ok();
}

// A user message: its toolResult blocks become one IR tool message, the rest
// an IR user message after it.
template <class S>
Status decode_user(json::array blocks, const Path& content_path, SeenCallIds& seen,
                   typename S::template Vector<ir::BasicMessage<S>>& out, SplitNotes<S> notes) {
  ir::BasicMessage<S> user{ir::Role::user, {}, {}};
  ir::BasicMessage<S> tool{ir::Role::tool, {}, {}};
  size_t i = 0;
  for (json::element block : blocks) {
    const size_t index = i;
    const Path path(content_path, i++);
    TW_ASSIGN(Block b, block_of(block, path));
    if (b.kind == "toolResult") {
      ir::BasicToolResultPart<S> result;
      TW_TRY(decode_tool_result<S>(b.value, Path(path, b.kind), seen, result));
      tool.parts.push_back(std::move(result));
      notes.block(true, tool.parts.size() - 1, tool.parts.size(), index);
      continue;
    }
    const size_t before = user.parts.size();
    TW_ASSIGN(bool ok, decode_plain_block<S>(block, b, path, user.parts));
    if (!ok)
      return json::invalid(Path(path, b.kind),
                           "'" + std::string(b.kind) + "' blocks are not allowed in user content");
    notes.block(false, before, user.parts.size(), index);
  }
  const size_t first = out.size();
  const bool has_results = !tool.parts.empty();
  push_user_message(std::move(tool), std::move(user), out);
  notes.pushed(first, has_results, out.size() - first > static_cast<size_t>(has_results));
  return Status::Ok();
}

template <class S>
Status decode_messages(json::element value, const Path& path,
                       typename S::template Vector<ir::BasicMessage<S>>& out,
                       ir::BasicSourceMap<S>& map) {
  SeenCallIds seen;
  const auto on_user = [&](json::element content, const Path& content_path,
                           size_t index) -> Status {
    TW_ASSIGN(json::array blocks, json::as_array(content, content_path));
    return decode_user<S>(blocks, content_path, seen, out, SplitNotes<S>{map, index, "content"});
  };
  const auto on_assistant = [&](json::element content, const Path& content_path,
                                size_t index) -> Status {
    TW_ASSIGN(json::array blocks, json::as_array(content, content_path));
    ir::BasicMessage<S> msg{ir::Role::assistant, {}, {}};
    msg.parts.reserve(blocks.size());
    note_source(map, out.size(), 0, 0, index);
    size_t j = 0;
    for (json::element block : blocks) {
      const size_t before = msg.parts.size();
      TW_TRY(decode_assistant_block<S>(block, Path(content_path, j), msg.parts, &seen));
      note_source(map, out.size(), before, msg.parts.size(), index, "content",
                  static_cast<uint32_t>(j++));
    }
    out.push_back(std::move(msg));
    return Status::Ok();
  };
  return decode_user_assistant_messages(value, path, out, on_user, on_assistant);
}

template <class S>
Status decode_system(json::element value, const Path& path, ir::BasicRequest<S>& req,
                     Warnings& warnings) {
  TW_ASSIGN(json::array blocks, json::as_array(value, path));
  size_t i = 0;
  for (json::element block : blocks) {
    const Path bpath(path, i++);
    TW_ASSIGN(Block b, block_of(block, bpath));
    if (b.kind != "text") {  // cachePoint, guardContent: kept for Bedrock (placed_member.h)
      req.extra.push_back(
          ir::BasicExtraField<S>{IrText<S>::made(bpath.str()),
                                 IrText<S>::made(placed_raw(kPlacedSystemBlock, req.system.size(),
                                                            0, json::compact(block)))});
      continue;
    }
    TW_ASSIGN(std::string_view text, json::as_string(b.value, Path(bpath, "text")));
    if (!text.empty()) req.system.push_back(ir::BasicSystemPart<S>{IrText<S>::keep(text), false});
  }
  return Status::Ok();
}

constexpr SamplingKeys kSampling{.max_tokens = "maxTokens",
                                 .temperature = "temperature",
                                 .top_p = "topP",
                                 .stop = "stopSequences"};

template <class S>
Status decode_inference_config(json::element value, const Path& path, ir::BasicRequest<S>& req,
                               Warnings& warnings) {
  TW_ASSIGN(json::object obj, json::as_object(value, path));
  for (auto field : obj) {
    const Path fpath(path, field.key);
    if (field.value.is_null()) continue;
    TW_ASSIGN(bool taken, decode_sampling_field(kSampling, field.key, field.value, fpath, req));
    if (!taken)
      warn(warnings, "dropped_unknown_field", fpath,
           "inferenceConfig field '" + std::string(field.key) + "' has no IR form; dropped");
  }
  return Status::Ok();
}

template <class S>
Status decode_tool_choice(json::element value, const Path& path, ir::BasicRequest<S>& req) {
  TW_ASSIGN(Block b, block_of(value, path));
  const Path vpath(path, b.kind);
  ir::BasicToolChoice<S> choice;
  if (b.kind == "auto") {
    choice.kind = ir::ToolChoice::Kind::auto_;
  } else if (b.kind == "any") {
    choice.kind = ir::ToolChoice::Kind::required;
  } else if (b.kind == "tool") {
    TW_ASSIGN(json::object obj, json::as_object(b.value, vpath));
    TW_ASSIGN(json::element name_el, json::required(obj, "name", vpath));
    TW_ASSIGN(std::string_view name, json::as_string(name_el, Path(vpath, "name")));
    choice.kind = ir::ToolChoice::Kind::tool;
    choice.name = IrText<S>::keep(name);
  } else {
    return json::invalid(
        vpath, "unknown toolChoice '" + std::string(b.kind) + "' (expected auto, any or tool)");
  }
  if (b.kind != "tool" && !b.value.is_object()) return json::as_object(b.value, vpath).error();
  req.tool_choice = std::move(choice);
  return Status::Ok();
}

template <class S>
Status decode_tool_config(json::element value, const Path& path, ir::BasicRequest<S>& req) {
  using T = IrText<S>;
  TW_ASSIGN(json::object obj, json::as_object(value, path));
  enum { kTools, kToolChoice };
  static constexpr std::string_view kKeys[] = {"tools", "toolChoice"};
  const auto f = json::pick(obj, kKeys);
  if (f.has[kTools]) {
    const Path tools_path(path, "tools");
    TW_ASSIGN(json::array tools, json::as_array(f.e[kTools], tools_path));
    size_t i = 0;
    for (json::element t : tools) {
      const Path tpath(tools_path, i++);
      TW_ASSIGN(Block b, block_of(t, tpath));
      if (b.kind != "toolSpec") {  // cachePoint, systemTool: kept for Bedrock only
        req.extra.push_back(
            ir::BasicExtraField<S>{typename S::String(kUnsupportedToolKey), T::raw_json(t)});
        continue;
      }
      const Path spath(tpath, "toolSpec");
      TW_ASSIGN(json::object spec, json::as_object(b.value, spath));
      enum { kName, kDescription, kInputSchema };
      static constexpr std::string_view kSpecKeys[] = {"name", "description", "inputSchema"};
      const auto g = json::pick(spec, kSpecKeys);
      ir::BasicToolDefinition<S> def;
      const Path name_path(spath, "name");
      TW_ASSIGN(json::element name_el, g.need(kName, "name", spath));
      TW_ASSIGN(std::string_view name, json::as_string(name_el, name_path));
      if (!is_valid_tool_name(name, kMaxToolNameLength)) [[unlikely]]
        return invalid_tool_name(kDialect, name, name_path.str());
      def.name = T::keep(name);
      if (g.has[kDescription]) {
        TW_ASSIGN(std::string_view d,
                  json::as_string(g.e[kDescription], Path(spath, "description")));
        def.description = T::keep(d);
      }
      const Path schema_path(spath, "inputSchema");
      TW_ASSIGN(json::element schema_el, g.need(kInputSchema, "inputSchema", spath));
      TW_ASSIGN(json::object schema_obj, json::as_object(schema_el, schema_path));
      const Path json_path(schema_path, "json");
      TW_ASSIGN(json::element schema, json::required(schema_obj, "json", schema_path));
      TW_TRY(json::check_tool_schema(schema, json_path));
      def.input_schema = T::raw_json(schema);
      // Members the IR has no field for: kept for Bedrock (placed_member.h).
      if (spec.size() > size_t(g.present[kName]) + g.present[kDescription] +
                            g.present[kInputSchema]) [[unlikely]] {
        for (auto [key, member] : spec) {
          if (key == "name" || key == "description" || key == "inputSchema") continue;
          req.extra.push_back(ir::BasicExtraField<S>{
              T::made(Path(spath, key).str()),
              T::made(placed_raw(kPlacedTool, req.tools.size(), 0, json::compact(member)))});
        }
      }
      req.tools.push_back(std::move(def));
    }
  }
  if (f.has[kToolChoice])
    TW_TRY(decode_tool_choice<S>(f.e[kToolChoice], Path(path, "toolChoice"), req));
  return Status::Ok();
}

// requestMetadata: a map of strings, the IR's metadata object.
template <class S>
Status decode_request_metadata(json::element value, const Path& path, ir::BasicRequest<S>& req) {
  TW_ASSIGN(json::object obj, json::as_object(value, path));
  for (auto field : obj)
    if (!field.value.is_string())
      return json::as_string(field.value, Path(path, field.key)).error();
  req.metadata = IrText<S>::raw_json(value);
  return Status::Ok();
}

bool is_known_field(std::string_view key) {
  return key == "messages" || key == "system" || key == "inferenceConfig" || key == "toolConfig" ||
         key == "requestMetadata";
}

constexpr RepeatRule kRepeatRules[] = {{"messages", kResetMessages},
                                       {"system", kResetSystem},
                                       {"toolConfig", kResetTools | kResetToolChoice},
                                       {"inferenceConfig", kResetSampling | kResetStop}};

}  // namespace

template <class S>
Status decode_request_into(std::string_view body, Warnings& warnings, ir::BasicRequest<S>& req) {
  using T = IrText<S>;
  const Path path;
  bool has_messages = false;
  TW_TRY(decode_request_fields(
      body, kDialect, req, warnings, RepeatRules{kRepeatRules, kUnsupportedToolKey},
      [&](std::string_view key, json::element value, const Path& fpath) -> Status {
        if (key == "messages") {
          has_messages = true;
          begin_source_map(req, "messages");
          TW_TRY(decode_messages<S>(value, fpath, req.messages, req.source_map));
          end_source_map(req);
        } else if (value.is_null() && is_known_field(key)) {
          // An explicit null means "absent".
        } else if (key == "system") {
          TW_TRY(decode_system<S>(value, fpath, req, warnings));
        } else if (key == "inferenceConfig") {
          TW_TRY(decode_inference_config<S>(value, fpath, req, warnings));
        } else if (key == "toolConfig") {
          TW_TRY(decode_tool_config<S>(value, fpath, req));
        } else if (key == "requestMetadata") {
          TW_TRY(decode_request_metadata<S>(value, fpath, req));
        } else if (key == "outputConfig" && !value.is_null()) {
          TW_TRY(decode_output_config<S>(value, fpath, req));
        } else if (key == kUnsupportedToolKey || is_placed_key(key)) {
          return json::invalid(fpath, "reserved field name");
        } else {
          // additionalModelRequestFields, guardrailConfig, promptVariables,
          // additionalModelResponseFieldPaths, performanceConfig, ...
          req.extra.push_back(ir::BasicExtraField<S>{T::keep(key), T::raw_json(value)});
        }
        return Status::Ok();
      }));
  if (!has_messages) return json::invalid(path, "missing required field 'messages'");
  return Status::Ok();
}

TW_INSTANTIATE_REQUEST_DECODER;

}  // namespace toolwire::dialects::bedrock_converse
