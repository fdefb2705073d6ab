// Anthropic Messages request JSON → IR request. Written once for both IR
// policies (IrText<S>: copies for the owning IR, views for translate_request's
// borrowed one).
#include <algorithm>

#include "dialects/anthropic_messages/structured_output.h"
#include "dialects/anthropic_messages/wire.h"
#include "dialects/common/call_id.h"
#include "dialects/common/request_fields.h"
#include "dialects/common/sampling.h"
#include "dialects/common/source_map.h"
#include "dialects/common/tool_schema.h"
#include "dialects/common/user_assistant_messages.h"
#include "toolwire/dialects/tool_rules.h"

namespace toolwire::dialects::anthropic_messages {
namespace {

using json::Path;

// Returns false (and leaves `out` alone) for source kinds the IR has no
// image form for (e.g. "file"): the caller keeps those blocks verbatim.
template <class S>
Result<bool> decode_image(const BlockFields& f, const Path& path, ir::BasicImagePart<S>& out) {
  using T = IrText<S>;
  const Path source_path(path, "source");
  TW_ASSIGN(json::element source_el, f.need(kSource, "source", path));
  TW_ASSIGN(json::object source, json::as_object(source_el, source_path));
  enum { kType, kMediaType, kData, kUrl };
  static constexpr std::string_view kKeys[] = {"type", "media_type", "data", "url"};
  const auto sf = json::pick(source, kKeys);
  TW_ASSIGN(json::element type_el, sf.need(kType, "type", source_path));
  const Path type_path(source_path, "type");
  TW_ASSIGN(std::string_view type, json::as_string(type_el, type_path));
  if (type == "base64") {
    const Path media_path(source_path, "media_type"), data_path(source_path, "data");
    TW_ASSIGN(json::element media_el, sf.need(kMediaType, "media_type", source_path));
    TW_ASSIGN(std::string_view media, json::as_string(media_el, media_path));
    TW_ASSIGN(json::element data_el, sf.need(kData, "data", source_path));
    TW_ASSIGN(std::string_view data, json::as_string(data_el, data_path));
    out.media_type = T::keep(media);
    out.data = T::keep(data);
    return true;
  }
  if (type == "url") {
    const Path url_path(source_path, "url");
    TW_ASSIGN(json::element url_el, sf.need(kUrl, "url", source_path));
    TW_ASSIGN(std::string_view url, json::as_string(url_el, url_path));
    out.url = T::keep(url);
    return true;
  }
  return false;
}

// Text, image or a verbatim unknown block: what user messages and tool
// results share. Returns false for other known block types.
template <class S, class Contents>
Result<bool> decode_plain_block(json::element block, const BlockFields& f, std::string_view type,
                                const Path& path, Contents& out) {
  using T = IrText<S>;
  if (type == "text") {
    const Path text_path(path, "text");
    TW_ASSIGN(json::element text_el, f.need(kText, "text", path));
    TW_ASSIGN(std::string_view text, json::as_string(text_el, text_path));
    if (!text.empty()) out.push_back(ir::BasicTextPart<S>{T::keep(text)});
    return true;
  }
  if (type == "image") {
    ir::BasicImagePart<S> image;
    TW_ASSIGN(bool decoded, decode_image<S>(f, path, image));
    if (decoded) {
      out.push_back(std::move(image));
      return true;
    }
  } else if (type == "tool_use" || type == "tool_result" || type == "thinking" ||
             type == "redacted_thinking") {
    return false;
  }
  out.push_back(
      ir::BasicUnknownPart<S>{typename S::String(kDialect), T::keep(type), T::raw_json(block)});
  return true;
}

// `members`: where the members of its content blocks (cache_control...)
// are kept, as part `part` of IR message members.message.
template <class S>
Status decode_tool_result(const BlockFields& f, const Path& path, const SeenCallIds& seen,
                          ir::BasicToolResultPart<S>& out, const BlockMembers<S>& members,
                          size_t part) {
  using T = IrText<S>;
  const Path id_path(path, "tool_use_id");
  TW_ASSIGN(json::element id_el, f.need(kToolUseId, "tool_use_id", path));
  TW_ASSIGN(std::string_view id, json::as_string(id_el, id_path));
  if (id.empty()) return json::invalid(id_path, "tool_use_id must not be empty");
  if (!seen.contains(id))
    return json::invalid(id_path, "no earlier tool_use block has id '" + std::string(id) + "'");
  std::string scratch;
  const std::string_view native = call_id::from_anthropic(id, scratch);
  out.call_id = native.data() == id.data() ? T::keep(id) : T::made(std::move(scratch));
  if (f.has[kContent]) {
    const json::element content = f.e[kContent];
    const Path content_path(path, "content");
    if (content.is_string()) {
      std::string_view text = content.get_string().value_unsafe();
      if (!text.empty()) out.content.push_back(ir::BasicTextPart<S>{T::keep(text)});
    } else {
      TW_ASSIGN(json::array blocks, json::as_array(content, content_path));
      size_t i = 0;
      for (json::element inner : blocks) {
        const Path inner_path(content_path, i++);
        TW_ASSIGN(json::object inner_obj, json::as_object(inner, inner_path));
        const BlockFields g = pick_block(inner_obj);
        TW_ASSIGN(std::string_view type, block_type(g, inner_path));
        const size_t before = out.content.size();
        TW_ASSIGN(bool ok, decode_plain_block<S>(inner, g, type, inner_path, out.content));
        if (!ok) {
          const Path type_path(inner_path, "type");
          return json::invalid(type_path, "'" + std::string(type) +
                                              "' blocks are not allowed in tool_result content");
        }
        // A verbatim block keeps its members itself.
        if ((g.has[kCacheControl] || g.has[kCitations]) && out.content.size() > before &&
            !std::holds_alternative<ir::BasicUnknownPart<S>>(out.content.back()) && members.extra)
            [[unlikely]]
          for (const int k : {kCacheControl, kCitations})
            if (g.has[k])
              members.extra->push_back(ir::BasicExtraField<S>{
                  T::made(Path(inner_path, kBlockKeys[k]).str()),
                  T::made(placed_raw(kPlacedResultBlock, members.message,
                                     result_block_slot(part, out.content.size() - 1),
                                     json::compact(g.e[k])))});
      }
    }
  }
  if (f.has[kIsError]) {
    const Path flag_path(path, "is_error");
    TW_ASSIGN(out.is_error, json::as_bool(f.e[kIsError], flag_path));
  }
  return Status::Ok();
}

// A user message: its tool_result blocks become one IR tool message, the rest
// an IR user message after it.
template <class S>
Status decode_user(json::element content, const Path& content_path, SeenCallIds& seen,
                   typename S::template Vector<ir::BasicMessage<S>>& out,
                   typename S::template Vector<ir::BasicExtraField<S>>& extra,
                   SplitNotes<S> notes) {
  ir::BasicMessage<S> user{ir::Role::user, {}, {}};
  if (content.is_string()) {
    std::string_view text = content.get_string().value_unsafe();
    if (!text.empty()) user.parts.push_back(ir::BasicTextPart<S>{IrText<S>::keep(text)});
    note_source(notes.map, out.size(), 0, user.parts.size(), notes.source, "content");
    out.push_back(std::move(user));
    return Status::Ok();
  }
  TW_ASSIGN(json::array blocks, json::as_array(content, content_path));
  ir::BasicMessage<S> tool{ir::Role::tool, {}, {}};
  // Blocks with members kept as placed extras, the message they go to known
  // at the end: (block index, in `tool`, part index). Rare: empty otherwise.
  struct Kept {
    size_t block;
    bool in_tool;
    size_t part;
  };
  std::vector<Kept> kept;
  auto note_kept = [&](const BlockFields& f, size_t block, bool in_tool, size_t before,
                       const auto& parts) {
    if ((f.has[kCacheControl] || f.has[kCitations]) && parts.size() > before &&
        !std::holds_alternative<ir::BasicUnknownPart<S>>(parts.back())) [[unlikely]]
      kept.push_back(Kept{block, in_tool, parts.size() - 1});
  };
  size_t i = 0;
  for (json::element block : blocks) {
    const size_t index = i;
    const Path path(content_path, i++);
    TW_ASSIGN(json::object obj, json::as_object(block, path));
    const BlockFields f = pick_block(obj);
    TW_ASSIGN(std::string_view type, block_type(f, path));
    if (type == "tool_result") {
      ir::BasicToolResultPart<S> result;
      // The tool message goes first: it will be IR message out.size().
      TW_TRY(decode_tool_result<S>(f, path, seen, result, BlockMembers<S>{&extra, out.size()},
                                   tool.parts.size()));
      if (tool.parts.empty()) tool.parts.reserve(blocks.size());  // reserved on first use: most
      tool.parts.push_back(std::move(result));                    // messages hold one kind only
      note_kept(f, index, true, tool.parts.size() - 1, tool.parts);
      notes.block(true, tool.parts.size() - 1, tool.parts.size(), index);
      continue;
    }
    if (user.parts.empty()) user.parts.reserve(blocks.size());
    const size_t before = user.parts.size();
    TW_ASSIGN(bool ok, decode_plain_block<S>(block, f, type, path, user.parts));
    if (!ok) {
      const Path type_path(path, "type");
      return json::invalid(type_path,
                           "'" + std::string(type) + "' blocks are not allowed in user content");
    }
    note_kept(f, index, false, before, user.parts);
    notes.block(false, before, user.parts.size(), index);
  }
  const size_t first = out.size();
  const bool has_results = !tool.parts.empty();
  push_user_message(std::move(tool), std::move(user), out);
  notes.pushed(first, has_results, out.size() - first > static_cast<size_t>(has_results));
  if (!kept.empty()) [[unlikely]] {
    size_t at = 0;
    for (json::element block : blocks) {  // the blocks again, for their members
      for (const Kept& k : kept) {
        if (k.block != at) continue;
        const json::object obj = block.get_object().value_unsafe();
        const BlockFields f = pick_block(obj);
        const BlockMembers<S> members{&extra, first + (k.in_tool || !has_results ? 0 : 1)};
        keep_block_members(f, Path(content_path, at), k.part, members);
      }
      ++at;
    }
  }
  return Status::Ok();
}

template <class S>
Status decode_messages(json::element value, const Path& path,
                       typename S::template Vector<ir::BasicMessage<S>>& out,
                       typename S::template Vector<ir::BasicExtraField<S>>& extra,
                       ir::BasicSourceMap<S>& map) {
  SeenCallIds seen;
  const auto on_user = [&](json::element content, const Path& content_path, size_t index) {
    return decode_user<S>(content, content_path, seen, out, extra,
                          SplitNotes<S>{map, index, "content"});
  };
  const auto on_assistant = [&](json::element content, const Path& content_path,
                                size_t index) -> Status {
    ir::BasicMessage<S> msg{ir::Role::assistant, {}, {}};
    note_source(map, out.size(), 0, 0, index);
    if (content.is_string()) {
      std::string_view text = content.get_string().value_unsafe();
      if (!text.empty()) msg.parts.push_back(ir::BasicTextPart<S>{IrText<S>::keep(text)});
      note_source(map, out.size(), 0, msg.parts.size(), index, "content");
    } else {
      TW_ASSIGN(json::array blocks, json::as_array(content, content_path));
      msg.parts.reserve(blocks.size());
      size_t j = 0;
      for (json::element block : blocks) {
        const size_t before = msg.parts.size();
        TW_TRY(decode_assistant_block<S>(block, Path(content_path, j), msg.parts, &seen,
                                         {&extra, out.size()}));
        note_source(map, out.size(), before, msg.parts.size(), index, "content",
                    static_cast<uint32_t>(j++));
      }
    }
    out.push_back(std::move(msg));
    return Status::Ok();
  };
  return decode_user_assistant_messages(value, path, out, on_user, on_assistant);
}

template <class S>
Status decode_system(json::element value, const Path& path,
                     typename S::template Vector<ir::BasicSystemPart<S>>& out,
                     typename S::template Vector<ir::BasicExtraField<S>>& extra) {
  if (value.is_string()) {
    std::string_view text = value.get_string().value_unsafe();
    if (!text.empty()) out.push_back(ir::BasicSystemPart<S>{IrText<S>::keep(text), false});
    return Status::Ok();
  }
  TW_ASSIGN(json::array blocks, json::as_array(value, path));
  size_t i = 0;
  for (json::element block : blocks) {
    const Path bpath(path, i++);
    TW_ASSIGN(json::object obj, json::as_object(block, bpath));
    const BlockFields f = pick_block(obj);
    TW_ASSIGN(std::string_view type, block_type(f, bpath));
    if (type != "text") {
      const Path type_path(bpath, "type");
      return json::invalid(type_path,
                           "system blocks must be 'text', got '" + std::string(type) + "'");
    }
    const Path text_path(bpath, "text");
    TW_ASSIGN(json::element text_el, f.need(kText, "text", bpath));
    TW_ASSIGN(std::string_view text, json::as_string(text_el, text_path));
    if (text.empty()) continue;
    out.push_back(ir::BasicSystemPart<S>{IrText<S>::keep(text), false});
    if (f.has[kCacheControl]) [[unlikely]] {  // prompt caching: kept for Anthropic
      const Path p(bpath, "cache_control");
      extra.push_back(
          ir::BasicExtraField<S>{IrText<S>::made(p.str()),
                                 IrText<S>::made(placed_raw(kPlacedSystem, out.size() - 1, 0,
                                                            json::compact(f.e[kCacheControl])))});
    }
  }
  return Status::Ok();
}

template <class S>
Status decode_tools(json::element value, const Path& path, ir::BasicRequest<S>& req) {
  using T = IrText<S>;
  TW_ASSIGN(json::array tools, json::as_array(value, path));
  size_t i = 0;
  for (json::element t : tools) {
    const Path tpath(path, i++);
    TW_ASSIGN(json::object obj, json::as_object(t, tpath));
    enum { kType, kName, kDescription, kInputSchema, kStrict };
    static constexpr std::string_view kKeys[] = {"type", "name", "description", "input_schema",
                                                 "strict"};
    const auto f = json::pick(obj, kKeys);
    if (f.has[kType]) {
      const Path type_path(tpath, "type");
      TW_ASSIGN(std::string_view type, json::as_string(f.e[kType], type_path));
      if (type != "custom") {  // server tools (web_search_..., bash_..., ...)
        req.extra.push_back(
            ir::BasicExtraField<S>{typename S::String(kUnsupportedToolKey), T::raw_json(t)});
        continue;
      }
    }
    ir::BasicToolDefinition<S> def;
    const Path name_path(tpath, "name");
    TW_ASSIGN(json::element name_el, f.need(kName, "name", tpath));
    TW_ASSIGN(std::string_view name, json::as_string(name_el, name_path));
    // The API refuses such a name: so does its decoder (what decodes, encodes).
    if (!is_valid_tool_name(name, kMaxToolNameLength)) [[unlikely]]
      return invalid_tool_name(kDialect, name, name_path.str());
    def.name = T::keep(name);
    if (f.has[kDescription]) {
      const Path p(tpath, "description");
      TW_ASSIGN(std::string_view d, json::as_string(f.e[kDescription], p));
      def.description = T::keep(d);
    }
    if (f.has[kInputSchema]) {
      const Path p(tpath, "input_schema");
      TW_TRY(json::check_tool_schema(f.e[kInputSchema], p));
      def.input_schema = T::raw_json(f.e[kInputSchema]);
    }
    if (f.has[kStrict]) {
      const Path p(tpath, "strict");
      TW_ASSIGN(def.strict, json::as_bool(f.e[kStrict], p));
    }
    // Members the IR has no field for (cache_control, defer_loading,
    // input_examples...): kept for Anthropic as placed members.
    if (obj.size() > size_t(f.present[kType]) + f.present[kName] + f.present[kDescription] +
                         f.present[kInputSchema] + f.present[kStrict]) [[unlikely]] {
      for (auto [key, member] : obj) {
        if (std::find(std::begin(kKeys), std::end(kKeys), key) != std::end(kKeys)) continue;
        const Path p(tpath, key);
        req.extra.push_back(ir::BasicExtraField<S>{
            T::made(p.str()),
            T::made(placed_raw(kPlacedTool, req.tools.size(), 0, json::compact(member)))});
      }
    }
    req.tools.push_back(std::move(def));
  }
  return Status::Ok();
}

template <class S>
Status decode_tool_choice(json::element value, const Path& path, ir::BasicRequest<S>& req) {
  TW_ASSIGN(json::object obj, json::as_object(value, path));
  enum { kType, kName, kDisableParallelToolUse };
  static constexpr std::string_view kKeys[] = {"type", "name", "disable_parallel_tool_use"};
  const auto f = json::pick(obj, kKeys);
  TW_ASSIGN(json::element type_el, f.need(kType, "type", path));
  const Path type_path(path, "type");
  TW_ASSIGN(std::string_view type, json::as_string(type_el, type_path));
  ir::BasicToolChoice<S> choice;
  if (type == "auto") {
    choice.kind = ir::ToolChoice::Kind::auto_;
  } else if (type == "any") {
    choice.kind = ir::ToolChoice::Kind::required;
  } else if (type == "none") {
    choice.kind = ir::ToolChoice::Kind::none;
  } else if (type == "tool") {
    choice.kind = ir::ToolChoice::Kind::tool;
    const Path name_path(path, "name");
    TW_ASSIGN(json::element name_el, f.need(kName, "name", path));
    TW_ASSIGN(std::string_view name, json::as_string(name_el, name_path));
    choice.name = IrText<S>::keep(name);
  } else {
    return json::invalid(type_path, "unknown tool_choice type '" + std::string(type) + "'");
  }
  if (f.has[kDisableParallelToolUse]) {
    const Path p(path, "disable_parallel_tool_use");
    TW_ASSIGN(bool disable, json::as_bool(f.e[kDisableParallelToolUse], p));
    req.parallel_tool_calls = !disable;
  }
  req.tool_choice = std::move(choice);
  return Status::Ok();
}

constexpr SamplingKeys kSampling{.max_tokens = "max_tokens",
                                 .temperature = "temperature",
                                 .top_p = "top_p",
                                 .stop = "stop_sequences",
                                 .stream = "stream",
                                 .metadata = "metadata",
                                 .top_k = "top_k"};

// `thinking` {type: enabled, budget_tokens} / {type: adaptive} / {type:
// disabled} into the IR; another type or other members stay an extra.
template <class S>
Status decode_thinking(json::element value, const Path& path, ir::BasicRequest<S>& req) {
  TW_ASSIGN(json::object obj, json::as_object(value, path));
  std::string_view type;
  std::optional<int64_t> budget;
  bool other = false;
  for (auto [member, v] : obj) {
    const Path p(path, member);
    if (member == "type") {
      TW_ASSIGN(type, json::as_string(v, p));
    } else if (member == "budget_tokens" && !v.is_null()) {
      TW_ASSIGN(budget, json::as_int64(v, p));
    } else {
      other = true;
    }
  }
  const bool known = (type == "enabled" && budget) || type == "adaptive" || type == "disabled";
  if (other || !known) {
    req.extra.push_back(ir::BasicExtraField<S>{"thinking", IrText<S>::raw_json(value)});
    return Status::Ok();
  }
  if (!req.reasoning) req.reasoning.emplace();
  if (budget)
    req.reasoning->budget_tokens = budget;
  else
    req.reasoning->enabled = type == "adaptive";
  return Status::Ok();
}

bool is_known_field(std::string_view key) {
  return key == "model" || key == "system" || key == "tools" || key == "tool_choice" ||
         key == "max_tokens" || key == "temperature" || key == "top_p" || key == "stop_sequences" ||
         key == "stream" || key == "metadata" || key == "top_k" || key == "thinking";
}

constexpr RepeatRule kRepeatRules[] = {{"messages", kResetMessages},
                                       {"system", kResetSystem},
                                       {"tools", kResetTools},
                                       {"stop_sequences", kResetStop},
                                       {"tool_choice", kResetToolChoice | kResetParallel}};

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
          TW_TRY(decode_messages<S>(value, fpath, req.messages, req.extra, req.source_map));
          end_source_map(req);
        } else if (value.is_null() && is_known_field(key)) {
          // An explicit null means "absent" for every optional field.
        } else if (key == "model") {
          TW_ASSIGN(std::string_view model, json::as_string(value, fpath));
          req.model = T::keep(model);
        } else if (key == "system") {
          TW_TRY(decode_system<S>(value, fpath, req.system, req.extra));
        } else if (key == "tools") {
          TW_TRY(decode_tools<S>(value, fpath, req));
        } else if (key == "tool_choice") {
          TW_TRY(decode_tool_choice<S>(value, fpath, req));
        } else if (key == "thinking") {
          TW_TRY(decode_thinking<S>(value, fpath, req));
        } else if ((key == "output_config" || key == "output_format") && !value.is_null()) {
          TW_TRY(decode_output_config<S>(key, value, fpath, req));
        } else if (key == kUnsupportedToolKey || is_placed_key(key)) {
          // Reserved: the IR uses this key for server tools kept from `tools`.
          return json::invalid(fpath, "reserved field name");
        } else {
          TW_ASSIGN(bool taken, decode_sampling_field(kSampling, key, value, fpath, req));
          if (!taken) req.extra.push_back(ir::BasicExtraField<S>{T::keep(key), T::raw_json(value)});
        }
        return Status::Ok();
      }));
  if (!has_messages) return json::invalid(path, "missing required field 'messages'");
  return Status::Ok();
}

TW_INSTANTIATE_REQUEST_DECODER;

}  // namespace toolwire::dialects::anthropic_messages
