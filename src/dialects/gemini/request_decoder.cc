// Gemini generateContent request JSON → IR request. Written once for both IR
// policies (IrText<S>: copies for the owning IR, views for translate_request's
// borrowed one). The model and the stream flag are in the URL, not the body:
// the IR's model stays empty and `stream` false.
#include <cctype>
#include <charconv>

#include "dialects/common/request_fields.h"
#include "dialects/common/sampling.h"
#include "dialects/common/tool_schema.h"
#include "dialects/gemini/structured_output.h"
#include "dialects/gemini/wire.h"

namespace toolwire::dialects::gemini {
namespace {

using json::Path;

// The calls seen so far, to match each functionResponse to its call: by id,
// or (Gemini 2 sends none) by name, the earliest unanswered call of that name.
struct Calls {
  struct Call {
    std::string id, name;  // the IR id, the wire name
    bool answered = false;
  };
  std::vector<Call> list;

  const Call* answer(std::string_view id, std::string_view name) {
    if (!id.empty()) {
      for (auto it = list.rbegin(); it != list.rend(); ++it)
        if (it->id == id) {
          it->answered = true;
          return &*it;
        }
      return nullptr;
    }
    for (auto& c : list)
      if (!c.answered && c.name == name) {
        c.answered = true;
        return &c;
      }
    return nullptr;
  }
};

// inlineData / fileData as an image when its MIME type is an image's; false
// (nothing decoded) for other media, which the caller keeps verbatim.
template <class S>
Result<bool> decode_media(json::element value, bool inline_data, const Path& path,
                          ir::BasicImagePart<S>& out) {
  using T = IrText<S>;
  TW_ASSIGN(json::object obj, json::as_object(value, path));
  enum { kMimeType, kData, kFileUri };
  static constexpr std::string_view kKeys[] = {"mimeType", "data", "fileUri"};
  const auto f = pick(obj, kKeys);
  std::string_view mime;
  if (f.has[kMimeType]) {
    const Path p(path, "mimeType");
    TW_ASSIGN(mime, json::as_string(f.e[kMimeType], p));
  }
  const bool image = mime.substr(0, 6) == "image/";
  if (inline_data) {
    const Path p(path, "data");
    TW_ASSIGN(json::element data_el, f.need(kData, "data", path));
    TW_ASSIGN(std::string_view data, json::as_string(data_el, p));
    if (!image) return false;
    out.media_type = T::keep(mime);
    out.data = T::keep(data);
    return true;
  }
  const Path p(path, "fileUri");
  TW_ASSIGN(json::element uri_el, f.need(kFileUri, "fileUri", path));
  TW_ASSIGN(std::string_view uri, json::as_string(uri_el, p));
  if (!image && !mime.empty()) return false;
  out.url = T::keep(uri);
  // The type the URL's extension implies is written back by the encoder.
  if (mime != media_from_url(uri)) out.media_type = T::keep(mime);
  return true;
}

// A user-side media or text part into `out` (ResultContent or Part list).
template <class S, class Out>
Status decode_plain_part(json::element part, const PartFields& f, const Path& path, Out& out) {
  using T = IrText<S>;
  if (f.present[kText]) {
    const Path p(path, "text");
    TW_ASSIGN(std::string_view text, json::as_string(f.e[kText], p));
    if (!text.empty()) out.push_back(ir::BasicTextPart<S>{T::keep(text)});
    return Status::Ok();
  }
  const bool inline_data = f.has[kInlineData];
  if (inline_data || f.has[kFileData]) {
    const Path p(path, inline_data ? "inlineData" : "fileData");
    ir::BasicImagePart<S> image;
    TW_ASSIGN(bool decoded,
              decode_media<S>(f.e[inline_data ? kInlineData : kFileData], inline_data, p, image));
    if (decoded) {
      out.push_back(std::move(image));
      return Status::Ok();
    }
  }
  json::object obj = part.get_object().value_unsafe();
  std::string_view type = "part";
  for (auto [key, value] : obj) {
    type = key;
    break;
  }
  out.push_back(
      ir::BasicUnknownPart<S>{typename S::String(kDialect), T::keep(type), T::raw_json(part)});
  return Status::Ok();
}

// `response` → the result's text: {"output": x} or {"error": x} (x a string,
// or any JSON written as text), anything else as its JSON text.
template <class S>
void decode_response_value(json::element value, ir::BasicToolResultPart<S>& out) {
  using T = IrText<S>;
  json::object obj;
  if (!value.get_object().get(obj) && obj.size() == 1) {
    auto field = *obj.begin();
    if (field.key == "output" || field.key == "error") {
      out.is_error = field.key == "error";
      std::string_view text;
      if (!field.value.get_string().get(text)) {
        if (!text.empty()) out.content.push_back(ir::BasicTextPart<S>{T::keep(text)});
      } else {
        out.content.push_back(ir::BasicTextPart<S>{T::raw_json(field.value)});
      }
      return;
    }
  }
  if (!value.is_object() || obj.size() > 0)
    out.content.push_back(ir::BasicTextPart<S>{T::raw_json(value)});
}

template <class S>
Status decode_function_response(const PartFields& f, const Path& part_path, Calls& calls,
                                ir::BasicToolResultPart<S>& out) {
  using T = IrText<S>;
  const Path path(part_path, "functionResponse");
  TW_ASSIGN(json::object obj, json::as_object(f.e[kFunctionResponse], path));
  enum { kId, kName, kResponse, kParts };
  static constexpr std::string_view kKeys[] = {"id", "name", "response", "parts"};
  const auto g = pick(obj, kKeys);
  const Path name_path(path, "name");
  TW_ASSIGN(json::element name_el, g.need(kName, "name", path));
  TW_ASSIGN(std::string_view name, json::as_string(name_el, name_path));
  std::string_view id;
  if (g.has[kId]) {
    const Path id_path(path, "id");
    TW_ASSIGN(id, json::as_string(g.e[kId], id_path));
  }
  const Calls::Call* call = calls.answer(id, name);
  if (!call) {
    if (!id.empty())
      return json::invalid(Path(path, "id"),
                           "no earlier functionCall has id '" + std::string(id) + "'");
    return json::invalid(name_path,
                         "no earlier unanswered functionCall is named '" + std::string(name) + "'");
  }
  out.call_id = id.empty() ? T::made(std::string(call->id)) : T::keep(id);
  if (g.has[kResponse]) {
    const Path p(path, "response");
    if (!g.e[kResponse].is_object()) return json::as_object(g.e[kResponse], p).error();
    decode_response_value<S>(g.e[kResponse], out);
  }
  if (g.has[kParts]) {
    const Path parts_path(path, "parts");
    TW_TRY(
        for_each_entry(g.e[kParts], parts_path, [&](json::element part, const Path& p) -> Status {
          TW_ASSIGN(json::object pobj, json::as_object(part, p));
          const PartFields pf = pick(pobj, kPartKeys);
          return decode_plain_part<S>(part, pf, p, out.content);
        }));
  }
  return Status::Ok();
}

template <class S>
using Messages = typename S::template Vector<ir::BasicMessage<S>>;

// A user (or "function") turn: its functionResponse parts become one IR tool
// message, the rest an IR user message after it.
// Members of a part (videoMetadata, mediaResolution, partMetadata...) or of
// its functionResponse (willContinue, scheduling) that the IR has no field
// for: kept as placed members (common/placed_member.h), written back by
// Gemini and dropped with a warning at their path by other dialects.
struct KeptMember {
  std::string path;
  std::string value;
  PlacedWhere where;
  bool in_tool;
  size_t part;
};
inline bool is_part_key(std::string_view key) {
  for (std::string_view k : kPartKeys)
    if (k == key) return true;
  return false;
}
inline void note_members(json::object obj, const Path& path, PlacedWhere where, bool in_tool,
                         size_t part, bool (*known)(std::string_view),
                         std::vector<KeptMember>& kept) {
  for (auto [key, value] : obj)
    if (!known(key))
      kept.push_back({Path(path, key).str(), json::compact(value), where, in_tool, part});
}

template <class S>
Status decode_user(json::element parts_el, const Path& parts_path, Calls& calls, Messages<S>& out,
                   typename S::template Vector<ir::BasicExtraField<S>>& extra,
                   SplitNotes<S> notes) {
  ir::BasicMessage<S> user{ir::Role::user, {}, {}};
  ir::BasicMessage<S> tool{ir::Role::tool, {}, {}};
  std::vector<KeptMember> kept;  // rare: empty otherwise
  size_t index = 0;
  TW_TRY(for_each_entry(parts_el, parts_path, [&](json::element part, const Path& path) -> Status {
    const size_t at = index++;
    TW_ASSIGN(json::object obj, json::as_object(part, path));
    const PartFields f = pick(obj, kPartKeys);
    size_t known = 0;
    for (bool p : f.present) known += p;
    const bool others = obj.size() > known;
    if (f.has[kFunctionResponse]) {
      ir::BasicToolResultPart<S> result;
      TW_TRY(decode_function_response<S>(f, path, calls, result));
      tool.parts.push_back(std::move(result));
      const size_t n = tool.parts.size() - 1;
      notes.block(true, n, n + 1, at);
      if (others) [[unlikely]]
        note_members(obj, path, kPlacedPart, true, n, is_part_key, kept);
      const json::object fr = f.e[kFunctionResponse].get_object().value_unsafe();
      if (fr.size() > 2) [[unlikely]]
        note_members(
            fr, Path(path, "functionResponse"), kPlacedPartInner, true, n,
            [](std::string_view k) {
              return k == "id" || k == "name" || k == "response" || k == "parts";
            },
            kept);
      return Status::Ok();
    }
    if (f.has[kFunctionCall])
      return json::invalid(Path(path, "functionCall"),
                           "functionCall parts are not allowed in user content");
    const size_t before = user.parts.size();
    TW_TRY(decode_plain_part<S>(part, f, path, user.parts));
    if (others && user.parts.size() > before &&
        !std::holds_alternative<ir::BasicUnknownPart<S>>(user.parts.back())) [[unlikely]]
      note_members(obj, path, kPlacedPart, false, user.parts.size() - 1, is_part_key, kept);
    notes.block(false, before, user.parts.size(), at);
    return Status::Ok();
  }));
  const size_t first = out.size();
  const bool has_results = !tool.parts.empty();
  if (has_results) out.push_back(std::move(tool));
  if (!user.parts.empty() || !has_results) out.push_back(std::move(user));
  notes.pushed(first, has_results, out.size() - first > static_cast<size_t>(has_results));
  for (KeptMember& k : kept)
    extra.push_back(ir::BasicExtraField<S>{
        IrText<S>::made(std::move(k.path)),
        IrText<S>::made(
            placed_raw(k.where, first + (k.in_tool || !has_results ? 0 : 1), k.part, k.value))});
  return Status::Ok();
}

template <class S>
Status decode_contents(json::element value, const Path& path, Messages<S>& out,
                       typename S::template Vector<ir::BasicExtraField<S>>& extra,
                       ir::BasicSourceMap<S>& map) {
  Calls calls;
  size_t index = 0;
  return for_each_entry(value, path, [&](json::element content, const Path& cpath) -> Status {
    const size_t content_index = index++;
    TW_ASSIGN(json::object obj, json::as_object(content, cpath));
    enum { kRole, kParts };
    static constexpr std::string_view kKeys[] = {"role", "parts"};
    const auto f = pick(obj, kKeys);
    std::string_view role = "user";
    if (f.has[kRole]) {
      const Path p(cpath, "role");
      TW_ASSIGN(role, json::as_string(f.e[kRole], p));
    }
    const Path parts_path(cpath, "parts");
    TW_ASSIGN(json::element parts_el, f.need(kParts, "parts", cpath));
    if (role == "user" || role == "function") {
      return decode_user<S>(parts_el, parts_path, calls, out, extra,
                            SplitNotes<S>{map, content_index, "parts"});
    }
    if (role != "model")
      return json::invalid(Path(cpath, "role"),
                           "unknown role '" + std::string(role) + "' (expected user or model)");
    ir::BasicMessage<S> msg{ir::Role::assistant, {}, {}};
    char salt_buf[24];
    auto [end, ec] = std::to_chars(salt_buf, salt_buf + sizeof salt_buf, content_index);
    const std::string_view salt(salt_buf, static_cast<size_t>(end - salt_buf));
    size_t ordinal = 0, at = 0;
    std::vector<KeptMember> kept;  // rare: empty otherwise
    note_source(map, out.size(), 0, 0, content_index);
    TW_TRY(
        for_each_entry(parts_el, parts_path, [&](json::element part, const Path& ppath) -> Status {
          const size_t before = msg.parts.size();
          TW_TRY(decode_model_part<S>(part, ppath, salt, ordinal, msg.parts));
          note_source(map, out.size(), before, msg.parts.size(), content_index, "parts",
                      static_cast<uint32_t>(at++));
          if (msg.parts.size() > before)
            if (auto* c = std::get_if<ir::BasicToolCallPart<S>>(&msg.parts.back())) {
              std::string scratch;
              calls.list.push_back(
                  {std::string(c->id), std::string(to_gemini_name(c->name, scratch)), false});
            }
          // partMetadata, videoMetadata...: placed on the part's first IR
          // part, which the encoder writes as that part (a part kept
          // verbatim keeps them itself).
          if (msg.parts.size() > before && part.is_object() &&
              !std::holds_alternative<ir::BasicUnknownPart<S>>(msg.parts[before])) {
            const json::object obj = part.get_object().value_unsafe();
            const PartFields pf = pick(obj, kPartKeys);
            size_t known = 0;
            for (bool p : pf.present) known += p;
            if (obj.size() > known) [[unlikely]]
              note_members(obj, ppath, kPlacedPart, false, before, is_part_key, kept);
          }
          return Status::Ok();
        }));
    for (KeptMember& k : kept)
      extra.push_back(ir::BasicExtraField<S>{
          IrText<S>::made(std::move(k.path)),
          IrText<S>::made(placed_raw(k.where, out.size(), k.part, k.value))});
    out.push_back(std::move(msg));
    return Status::Ok();
  });
}

template <class S>
Status decode_system(json::element value, const Path& path, ir::BasicRequest<S>& req) {
  using T = IrText<S>;
  req.system.clear();
  TW_ASSIGN(json::object obj, json::as_object(value, path));
  enum { kParts };
  static constexpr std::string_view kKeys[] = {"parts"};
  const auto f = pick(obj, kKeys);
  if (!f.has[kParts]) return Status::Ok();
  const Path parts_path(path, "parts");
  return for_each_entry(f.e[kParts], parts_path, [&](json::element part, const Path& p) -> Status {
    TW_ASSIGN(json::object pobj, json::as_object(part, p));
    const PartFields pf = pick(pobj, kPartKeys);
    if (!pf.present[kText]) return json::invalid(p, "systemInstruction parts must be text");
    const Path tp(p, "text");
    TW_ASSIGN(std::string_view text, json::as_string(pf.e[kText], tp));
    if (!text.empty()) req.system.push_back(ir::BasicSystemPart<S>{T::keep(text), false});
    return Status::Ok();
  });
}

template <class S>
Status decode_declaration(json::element decl, const Path& path, ir::BasicRequest<S>& req,
                          Warnings& warnings) {
  using T = IrText<S>;
  TW_ASSIGN(json::object obj, json::as_object(decl, path));
  ir::BasicToolDefinition<S> def;
  bool has_name = false;
  std::string scratch;
  for (auto [raw_key, value] : obj) {
    const std::string_view key = camel_key(raw_key, scratch);
    const Path p(path, raw_key);
    if (value.is_null()) continue;
    if (key == "name") {
      TW_ASSIGN(std::string_view name, json::as_string(value, p));
      // The API refuses such a name: so does its decoder (what decodes, encodes).
      if (!is_valid_name(name)) return invalid_name(name, p);
      def.name = T::keep(from_gemini_name(name));
      has_name = true;
    } else if (key == "description") {
      TW_ASSIGN(std::string_view d, json::as_string(value, p));
      def.description = T::keep(d);
    } else if (key == "parameters") {
      std::string schema;
      TW_TRY(decode_schema(value, p, schema));
      def.input_schema = T::made(std::move(schema));
    } else if (key == "parametersJsonSchema") {
      TW_TRY(json::check_tool_schema(value, p));
      def.input_schema = T::raw_json(value);
    } else {
      warn(warnings, "dropped_declaration_field", p,
           "function declaration field '" + std::string(raw_key) + "' is not kept");
    }
  }
  if (!has_name) return json::invalid(path, "missing required field 'name'");
  req.tools.push_back(std::move(def));
  return Status::Ok();
}

template <class S>
Status decode_tools(json::element value, const Path& path, ir::BasicRequest<S>& req,
                    Warnings& warnings) {
  TW_ASSIGN(json::array tools, json::as_array(value, path));
  size_t i = 0;
  std::string scratch;
  for (json::element t : tools) {
    const Path tpath(path, i++);
    TW_ASSIGN(json::object obj, json::as_object(t, tpath));
    for (auto [raw_key, v] : obj) {
      const Path kpath(tpath, raw_key);
      if (camel_key(raw_key, scratch) == "functionDeclarations") {
        if (v.is_null()) continue;
        TW_ASSIGN(json::array decls, json::as_array(v, kpath));
        size_t j = 0;
        for (json::element d : decls)
          TW_TRY(decode_declaration<S>(d, Path(kpath, j++), req, warnings));
        continue;
      }
      // googleSearch, codeExecution, urlContext, ...: kept raw as one tool each.
      std::string raw = "{";
      JsonWriter::append_escaped(raw, raw_key);
      raw.push_back(':');
      json::append_compact(raw, v);
      raw.push_back('}');
      req.extra.push_back(ir::BasicExtraField<S>{typename S::String(kUnsupportedToolKey),
                                                 IrText<S>::made(std::move(raw))});
    }
  }
  return Status::Ok();
}

template <class S>
Status decode_tool_config(json::element value, const Path& path, ir::BasicRequest<S>& req,
                          Warnings& warnings) {
  using T = IrText<S>;
  using Kind = ir::ToolChoiceKind;
  TW_ASSIGN(json::object obj, json::as_object(value, path));
  std::string scratch;
  for (auto [raw_key, v] : obj) {
    const Path kpath(path, raw_key);
    if (camel_key(raw_key, scratch) != "functionCallingConfig") {
      req.extra.push_back(
          ir::BasicExtraField<S>{T::made("toolConfig." + std::string(raw_key)), T::raw_json(v)});
      continue;
    }
    if (v.is_null()) continue;
    TW_ASSIGN(json::object fcc, json::as_object(v, kpath));
    enum { kMode, kAllowed };
    static constexpr std::string_view kKeys[] = {"mode", "allowedFunctionNames"};
    const auto f = pick(fcc, kKeys);
    std::string_view mode = "AUTO";
    const Path mode_path(kpath, "mode");
    if (f.has[kMode]) {
      TW_ASSIGN(mode, json::as_string(f.e[kMode], mode_path));
    }
    std::vector<std::string_view> allowed;
    const Path allowed_path(kpath, "allowedFunctionNames");
    if (f.has[kAllowed]) {
      TW_ASSIGN(json::array names, json::as_array(f.e[kAllowed], allowed_path));
      size_t j = 0;
      for (json::element n : names) {
        const Path npath(allowed_path, j++);
        TW_ASSIGN(std::string_view name, json::as_string(n, npath));
        if (!is_valid_name(name)) return invalid_name(name, npath);
        allowed.push_back(name);
      }
    }
    ir::BasicToolChoice<S> choice;
    if (mode == "AUTO" || mode == "MODE_UNSPECIFIED") {
      choice.kind = Kind::auto_;
    } else if (mode == "VALIDATED") {
      choice.kind = Kind::auto_;
      warn(warnings, "approximated_tool_choice", mode_path,
           "mode VALIDATED (calls checked against their schemas) is read as AUTO");
    } else if (mode == "NONE") {
      choice.kind = Kind::none;
    } else if (mode == "ANY") {
      choice.kind = Kind::required;
      if (allowed.size() == 1) {
        choice.kind = Kind::tool;
        choice.name = T::keep(from_gemini_name(allowed[0]));
      } else if (allowed.size() > 1) {
        warn(warnings, "widened_tool_choice", allowed_path,
             "the IR names one tool at most: any tool may be called, not only the " +
                 std::to_string(allowed.size()) + " allowed ones");
      }
    } else {
      return json::invalid(mode_path, "unknown mode '" + std::string(mode) +
                                          "' (expected AUTO, ANY, NONE or VALIDATED)");
    }
    if (!allowed.empty() && mode != "ANY")
      warn(warnings, "dropped_allowed_function_names", allowed_path,
           "allowedFunctionNames only applies to mode ANY; ignored");
    req.tool_choice = std::move(choice);
  }
  return Status::Ok();
}

constexpr SamplingKeys kSampling{.max_tokens = "maxOutputTokens",
                                 .temperature = "temperature",
                                 .top_p = "topP",
                                 .stop = "stopSequences",
                                 .seed = "seed",
                                 .top_k = "topK",
                                 .frequency_penalty = "frequencyPenalty",
                                 .presence_penalty = "presencePenalty"};

// `thinkingConfig` {thinkingBudget, thinkingLevel, includeThoughts} into the
// IR; other members keep the whole object an extra.
template <class S>
Result<bool> decode_thinking_config(json::element value, const Path& path,
                                    ir::BasicRequest<S>& req) {
  TW_ASSIGN(json::object obj, json::as_object(value, path));
  ir::BasicReasoning<S> r;
  std::string scratch;
  for (auto [raw_key, v] : obj) {
    const std::string_view key = camel_key(raw_key, scratch);
    const Path p(path, raw_key);
    if (v.is_null()) continue;
    if (key == "thinkingBudget") {
      TW_ASSIGN(int64_t budget, json::as_int64(v, p));
      if (budget < 0)
        r.enabled = true;  // -1: dynamic
      else
        r.budget_tokens = budget;
    } else if (key == "thinkingLevel") {
      // The REST enum is upper case (LOW), Google's examples write it lower
      // case; the IR's effort words are lower case.
      TW_ASSIGN(std::string_view level, json::as_string(v, p));
      if (level == "THINKING_LEVEL_UNSPECIFIED") continue;
      std::string lower(level);
      for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      r.effort = lower == level ? IrText<S>::keep(level) : IrText<S>::made(std::move(lower));
    } else if (key == "includeThoughts") {
      TW_ASSIGN(bool include, json::as_bool(v, p));
      if (include) r.summary = IrText<S>::keep("auto");
    } else {
      return false;
    }
  }
  req.reasoning = std::move(r);
  return true;
}

template <class S>
Status decode_generation_config(json::element value, const Path& path, ir::BasicRequest<S>& req) {
  using T = IrText<S>;
  TW_ASSIGN(json::object obj, json::as_object(value, path));
  std::string scratch;
  FormatMembers format;
  for (auto [raw_key, v] : obj) {
    const std::string_view key = camel_key(raw_key, scratch);
    const Path p(path, raw_key);
    if (v.is_null() || format.take(key, raw_key, v)) continue;
    if (key == "thinkingConfig") {
      TW_ASSIGN(bool known, decode_thinking_config(v, p, req));
      if (known) continue;
    }
    TW_ASSIGN(bool taken, decode_sampling_field(kSampling, key, v, p, req));
    if (!taken)  // topK, seed, thinkingConfig, ...
      req.extra.push_back(ir::BasicExtraField<S>{
          T::made(std::string(kGenerationConfigPrefix) + std::string(raw_key)), T::raw_json(v)});
  }
  return decode_response_format(format, path, req);
}

}  // namespace

template <class S>
Status decode_request_into(std::string_view body, Warnings& warnings, ir::BasicRequest<S>& req) {
  using T = IrText<S>;
  TW_ASSIGN(json::object obj, open_request(body, kDialect, req));
  const Path path;
  bool has_contents = false;
  std::string scratch;
  for (auto field : obj) {
    const std::string_view key = camel_key(field.key, scratch);
    const json::element value = field.value;
    const Path fpath(path, field.key);
    if (key == "contents") {
      if (has_contents)
        warn(warnings, "duplicate_key", fpath,
             "this key appears more than once; the last value is used");
      has_contents = true;
      req.messages.clear();
      std::erase_if(req.extra, [](const auto& x) {  // members kept from the first value
        return std::string_view(x.key).starts_with("$.");
      });
      begin_source_map(req, "contents");
      TW_TRY(decode_contents<S>(value, fpath, req.messages, req.extra, req.source_map));
      end_source_map(req);
    } else if (value.is_null() && (key == "systemInstruction" || key == "tools" ||
                                   key == "toolConfig" || key == "generationConfig")) {
      // An explicit null means "absent".
    } else if (key == "systemInstruction") {
      TW_TRY(decode_system<S>(value, fpath, req));
    } else if (key == "tools") {
      TW_TRY(decode_tools<S>(value, fpath, req, warnings));
    } else if (key == "toolConfig") {
      TW_TRY(decode_tool_config<S>(value, fpath, req, warnings));
    } else if (key == "generationConfig") {
      TW_TRY(decode_generation_config<S>(value, fpath, req));
    } else if (field.key == kUnsupportedToolKey || is_placed_key(field.key)) {
      return json::invalid(fpath, "reserved field name");
    } else {  // safetySettings, cachedContent, labels, ...
      req.extra.push_back(ir::BasicExtraField<S>{T::keep(field.key), T::raw_json(value)});
    }
  }
  if (!has_contents) return json::invalid(path, "missing required field 'contents'");
  return Status::Ok();
}

TW_INSTANTIATE_REQUEST_DECODER;

}  // namespace toolwire::dialects::gemini
