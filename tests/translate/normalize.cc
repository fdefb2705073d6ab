#include "normalize.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "toolwire/schema/json_schema.h"

namespace toolwire::testing {
namespace {

using nlohmann::json;

// Integral floats become integers so 1 and 1.0 compare equal, as JSON values do.
void canonical_numbers(json& j) {
  if (j.is_number_float()) {
    double d = j.get<double>();
    if (std::isfinite(d) && std::floor(d) == d && std::fabs(d) < 9e15) j = static_cast<int64_t>(d);
  } else if (j.is_structured()) {
    for (auto& child : j) canonical_numbers(child);
  }
}

// Bedrock takes images as bytes: one given by a web URL is dropped (warning).
bool bedrock_drops(const ir::ImagePart& img) {
  return img.data.empty() && !img.url.starts_with("data:");
}

constexpr std::string_view kMovedImageNote = "Image returned by tool call ";
constexpr std::string_view kGeminiSkipSignature = "skip_thought_signature_validator";

// Gemini sends a result's texts as one output string, joined by a blank line.
void join_result_texts(std::vector<ir::ResultContent>& content) {
  std::string joined;
  size_t texts = 0;
  std::vector<ir::ResultContent> rest;
  for (auto& c : content) {
    if (auto* t = std::get_if<ir::TextPart>(&c)) {
      if (texts++) joined += "\n\n";
      joined += t->text;
    } else {
      rest.push_back(std::move(c));
    }
  }
  content.clear();
  if (texts) content.push_back(ir::TextPart{std::move(joined)});
  for (auto& c : rest) content.push_back(std::move(c));
}

// A schema as Gemini's subset (what the Gemini encoder sends), canonical.
std::string gemini_schema(const std::string& text) {
  auto parsed = nlohmann::ordered_json::parse(text, nullptr, false);
  if (parsed.is_discarded()) return text;
  auto converted = schema::to_gemini_schema(parsed);
  if (!converted) return text;
  // No properties: the encoder omits `parameters`; the decoder's default.
  if (!converted->contains("properties") || (*converted)["properties"].empty())
    return canonical_json(R"({"type":"object","properties":{}})");
  return canonical_json(converted->dump());
}

constexpr std::string_view kResponses = "openai_responses";
// The route leaves Responses: a reasoning item's id and encrypted content,
// which only Responses carries, are lost (dropped_reasoning_item).
bool leaves_responses(Route route) {
  return std::any_of(route.dialects.begin(), route.dialects.end(),
                     [](std::string_view d) { return d != kResponses; });
}

void normalize_parts(std::vector<ir::Part>& parts, Route route, bool in_request) {
  std::vector<ir::Part> out;
  for (auto& part : parts) {
    if (std::holds_alternative<ir::UnknownPart>(part))
      continue;  // other dialect drops it (warning)
    if (auto* t = std::get_if<ir::TextPart>(&part); t && t->text.empty()) continue;
    if (auto* call = std::get_if<ir::ToolCallPart>(&part)) {
      if (call->arguments_valid) call->arguments = canonical_json(call->arguments);
    }
    if (auto* img = std::get_if<ir::ImagePart>(&part);
        img && (route.via("anthropic_messages") || route.via("gemini")))
      img->detail.clear();
    if (auto* img = std::get_if<ir::ImagePart>(&part); img && route.via("bedrock_converse")) {
      if (bedrock_drops(*img)) continue;
      img->detail.clear();
    }
    // Only Gemini carries a call's signature (dropped_call_signature elsewhere).
    if (auto* call = std::get_if<ir::ToolCallPart>(&part);
        call && std::any_of(route.dialects.begin(), route.dialects.end(),
                            [](std::string_view d) { return d != "gemini"; }))
      call->signature.clear();
    // Gemini's placeholder signature on a call from another dialect's history.
    if (auto* call = std::get_if<ir::ToolCallPart>(&part);
        call && route.via("gemini") && call->signature == kGeminiSkipSignature)
      call->signature.clear();
    if (auto* th = std::get_if<ir::ThinkingPart>(&part)) {
      if (route.via("bedrock_converse")) {  // no reasoning item id or encrypted content (warning)
        th->item_id.clear();
        th->encrypted_content.clear();
      }
      if (route.via("gemini") && th->redacted) continue;  // no Gemini form
      if (leaves_responses(route)) {
        th->item_id.clear();
        th->encrypted_content.clear();
      }
      if (route.via(kResponses)) {  // reasoning items: no signature, no redacted blocks
        if (th->redacted) continue;
        th->signature.clear();
        // Sent back, reasoning must be a Responses item (its id); in a
        // response an item without one gets a generated id.
        if (in_request && th->item_id.empty()) continue;
        if (!in_request) th->item_id.clear();
      }
      if (route.via("openai_chat")) {  // reasoning_content: no signature, no redacted blocks
        if (th->redacted) continue;
        th->signature.clear();
      }
      // Anthropic rejects unsigned thinking sent back: dropped with a warning.
      if (route.via("anthropic_messages") && in_request && !th->redacted && th->signature.empty())
        continue;
    }
    if (auto* res = std::get_if<ir::ToolResultPart>(&part)) {
      std::vector<ir::ResultContent> content;
      for (auto& c : res->content) {
        if (std::holds_alternative<ir::UnknownPart>(c)) continue;
        if (auto* t = std::get_if<ir::TextPart>(&c); t && t->text.empty()) continue;
        if (auto* img = std::get_if<ir::ImagePart>(&c);
            img && (route.via("anthropic_messages") || route.via("gemini")))
          img->detail.clear();
        if (auto* img = std::get_if<ir::ImagePart>(&c); img && route.via("bedrock_converse")) {
          if (bedrock_drops(*img)) continue;
          img->detail.clear();
        }
        content.push_back(std::move(c));
      }
      if (route.via("openai_chat"))  // OpenAI carries a result's texts and its images apart
        std::stable_partition(content.begin(), content.end(), [](const ir::ResultContent& c) {
          return std::holds_alternative<ir::TextPart>(c);
        });
      if (route.via("gemini")) join_result_texts(content);
      res->content = std::move(content);
    }
    out.push_back(std::move(part));
  }
  parts = std::move(out);
}

// Images OpenAI had to move out of tool results ("Image returned by tool call
// <id>:" + images in a following user message) go back into their result.
void fold_moved_images(std::vector<ir::Message>& messages) {
  for (size_t m = 0; m < messages.size(); ++m) {
    if (messages[m].role != ir::Role::user) continue;
    auto& parts = messages[m].parts;
    std::vector<ir::Part> kept;
    for (size_t i = 0; i < parts.size(); ++i) {
      auto* note = std::get_if<ir::TextPart>(&parts[i]);
      ir::ToolResultPart* target = nullptr;
      if (note && note->text.starts_with(kMovedImageNote) && note->text.ends_with(":")) {
        std::string id = note->text.substr(kMovedImageNote.size(),
                                           note->text.size() - kMovedImageNote.size() - 1);
        for (size_t back = m; back-- > 0 && !target;) {
          if (messages[back].role != ir::Role::tool) continue;
          for (auto& p : messages[back].parts)
            if (auto* r = std::get_if<ir::ToolResultPart>(&p); r && r->call_id == id) target = r;
        }
      }
      if (!target) {
        kept.push_back(std::move(parts[i]));
        continue;
      }
      while (i + 1 < parts.size() && std::holds_alternative<ir::ImagePart>(parts[i + 1]))
        target->content.push_back(std::get<ir::ImagePart>(std::move(parts[++i])));
    }
    parts = std::move(kept);
  }
  std::erase_if(messages, [](const ir::Message& msg) {
    return msg.role == ir::Role::user && msg.parts.empty();
  });
}

}  // namespace

void zero_usage_unset(ir::Usage& u) {
  for (auto* f : {&u.input_tokens, &u.output_tokens, &u.cache_read_tokens, &u.cache_write_tokens})
    if (*f == 0) f->reset();
}

std::string canonical_json(const std::string& text) {
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded()) return text;
  canonical_numbers(j);
  return j.dump();
}

ir::Request normalized(ir::Request r, Route route) {
  r.source_dialect.clear();
  r.extra.clear();
  if (route.via("openai_chat")) fold_moved_images(r.messages);
  for (auto& m : r.messages) {
    normalize_parts(m.parts, route, /*in_request=*/true);
    if (route.via("anthropic_messages") || route.via(kResponses)) m.name.clear();
  }
  std::erase_if(r.messages, [](const ir::Message& msg) { return msg.parts.empty(); });
  if (route.via("anthropic_messages")) {
    for (auto& s : r.system) s.developer = false;
    for (auto& t : r.tools) t.strict.reset();
    if (!r.max_tokens) r.max_tokens = 4096;
    if (r.parallel_tool_calls == true) r.parallel_tool_calls.reset();
    // The flag needs a tool_choice to live in: {"type":"auto",...} is written.
    if (r.parallel_tool_calls == false && !r.tool_choice) r.tool_choice = ir::ToolChoice{};
  }
  if (route.via("bedrock_converse")) {
    // The model and streaming are the URL's (/model/{id}/converse[-stream]).
    r.model.clear();
    r.stream = false;
    for (auto& m : r.messages) m.name.clear();
    for (auto& s : r.system) s.developer = false;
    for (auto& t : r.tools) t.strict.reset();
    r.parallel_tool_calls.reset();  // no switch: dropped (warning)
    // No "none" choice (dropped, warning): the model decides, as with no choice.
    if (r.tool_choice && r.tool_choice->kind == ir::ToolChoice::Kind::none) r.tool_choice.reset();
    if (r.tools.empty()) r.tool_choice.reset();
  }
  if (route.via("gemini")) {
    r.model.clear();  // in the URL, as is the stream flag
    r.stream = false;
    r.metadata.clear();
    r.parallel_tool_calls.reset();
    for (auto& s : r.system) s.developer = false;
    for (auto& t : r.tools) t.strict.reset();
    for (auto& m : r.messages) m.name.clear();
  }
  if (route.via(kResponses)) {
    r.stop.clear();          // Responses has no stop sequences
    for (auto& t : r.tools)  // Responses defaults strict to true: unset is written false
      if (!t.strict) t.strict = false;
  }
  for (auto& t : r.tools)
    t.input_schema =
        route.via("gemini") ? gemini_schema(t.input_schema) : canonical_json(t.input_schema);
  if (!r.metadata.empty()) r.metadata = canonical_json(r.metadata);
  return r;
}

ir::Response normalized(ir::Response r, Route route) {
  r.source_dialect.clear();
  r.extra.clear();
  r.finish.raw.clear();
  normalize_parts(r.parts, route, /*in_request=*/false);
  zero_usage_unset(r.usage);
  if (route.via("anthropic_messages")) r.created = 0;
  if (route.via("openai_chat") || route.via(kResponses)) r.usage.cache_write_tokens.reset();
  if (route.via("bedrock_converse")) {  // a Bedrock response names no id, model or time
    r.id.clear();
    r.model.clear();
    r.created = 0;
  }
  if (route.via("gemini")) {
    r.created = 0;
    r.usage.cache_write_tokens.reset();
    // Gemini 2 responses have no responseId; the other encoders make one up.
    if (r.id.starts_with("msg_toolwire_") || r.id.starts_with("chatcmpl-toolwire-") ||
        r.id.starts_with("resp_toolwire_"))
      r.id.clear();
  }
  return r;
}

}  // namespace toolwire::testing
