// The renderers' registry, and a conversation rendered through one: as text
// messages, as a request for a chat endpoint without tools, as a raw prompt.
#include <map>

#include "textformats/render_base.h"
#include "toolwire/textformats/parser.h"

namespace toolwire::textformats {

Result<std::unique_ptr<PromptRenderer>> make_renderer(std::string_view family) {
  for (auto make : {render::make_chatml_renderer, render::make_llama_renderer,
                    render::make_mistral_renderer, render::make_other_renderer})
    if (auto r = make(family)) return r;
  // The same message as make_parser's (it lists the known families).
  auto p = make_parser(family);
  if (!p) return std::move(p).error();
  return make_error(ErrorCode::internal, "no renderer for '" + std::string(family) + "'");
}

namespace {

std::string path(size_t m, size_t p) {
  return "$.messages[" + std::to_string(m) + "].parts[" + std::to_string(p) + "]";
}

Status text_of(const ir::ResultContent& c, std::string& out, const std::string& where) {
  if (auto* t = std::get_if<ir::TextPart>(&c)) {
    out += t->text;
    return {};
  }
  return make_error(ErrorCode::invalid_argument,
                    "a tool result with an image or an unknown block cannot be written as text",
                    where);
}

}  // namespace

Result<std::vector<TextMessage>> render_messages(const PromptRenderer& r, const ir::Request& req) {
  std::vector<TextMessage> out;
  std::string system;
  for (const auto& s : req.system) system += (system.empty() ? "" : "\n\n") + s.text;
  using Kind = ir::ToolChoice::Kind;
  const bool no_tools = req.tool_choice && req.tool_choice->kind == Kind::none;
  if (!req.tools.empty() && !no_tools) {
    system += (system.empty() ? "" : "\n\n") + r.tools_block(req.tools);
    if (req.tool_choice && req.tool_choice->kind == Kind::required)
      system += "\n\nCall at least one tool in your answer.";
    if (req.tool_choice && req.tool_choice->kind == Kind::tool)
      system += "\n\nCall the tool " + req.tool_choice->name + " in your answer.";
  }
  if (!system.empty()) out.push_back({"system", std::move(system)});

  std::map<std::string, std::string, std::less<>> names;  // call id → tool name
  std::vector<ToolResultText> pending;
  auto flush = [&] {
    if (pending.empty()) return;
    for (auto& m : r.results(pending)) out.push_back(std::move(m));
    pending.clear();
  };
  for (size_t i = 0; i < req.messages.size(); ++i) {
    const ir::Message& m = req.messages[i];
    std::string text;
    std::vector<ir::ToolCallPart> calls;
    for (size_t j = 0; j < m.parts.size(); ++j) {
      const ir::Part& part = m.parts[j];
      if (auto* t = std::get_if<ir::TextPart>(&part)) {
        text += t->text;
      } else if (auto* c = std::get_if<ir::ToolCallPart>(&part)) {
        calls.push_back(*c);
        names[c->id] = c->name;
      } else if (auto* res = std::get_if<ir::ToolResultPart>(&part)) {
        ToolResultText t{res->call_id, {}, {}, res->is_error};
        if (auto n = names.find(res->call_id); n != names.end()) t.name = n->second;
        for (size_t k = 0; k < res->content.size(); ++k)
          if (Status s = text_of(res->content[k], t.content,
                                 path(i, j) + ".content[" + std::to_string(k) + "]");
              !s)
            return s.error();
        pending.push_back(std::move(t));
      } else if (!std::holds_alternative<ir::ThinkingPart>(part)) {
        return make_error(ErrorCode::invalid_argument,
                          "tool_format '" + std::string(r.family()) +
                              "': an image or an unknown block cannot be written as text",
                          path(i, j));
      }
    }
    if (m.role == ir::Role::tool) continue;  // its results wait for the round's last one
    flush();
    if (m.role == ir::Role::assistant) {
      if (!text.empty() || !calls.empty()) out.push_back({"assistant", r.assistant(text, calls)});
    } else if (!text.empty()) {
      out.push_back({m.role == ir::Role::system ? "system" : "user", std::move(text)});
    }
  }
  flush();
  return out;
}

Result<ir::Request> render_chat(const PromptRenderer& r, const ir::Request& req) {
  auto msgs = render_messages(r, req);
  if (!msgs) return std::move(msgs).error();
  ir::Request out;
  out.model = req.model;
  out.max_tokens = req.max_tokens;
  out.temperature = req.temperature;
  out.top_p = req.top_p;
  out.stop = req.stop;
  out.seed = req.seed;
  out.top_k = req.top_k;
  out.frequency_penalty = req.frequency_penalty;
  out.presence_penalty = req.presence_penalty;
  out.reasoning = req.reasoning;
  out.verbosity = req.verbosity;
  out.stream = req.stream;
  out.metadata = req.metadata;
  out.source_dialect = req.source_dialect;
  out.extra = req.extra;
  out.deadline_ms = req.deadline_ms;
  out.on_loss = req.on_loss;
  size_t i = 0;
  if (!msgs->empty() && msgs->front().role == "system") {
    out.system.push_back({std::move(msgs->front().content), false});
    i = 1;
  }
  for (; i < msgs->size(); ++i) {
    TextMessage& m = (*msgs)[i];
    ir::Message im;
    im.role = m.role == "assistant" ? ir::Role::assistant
              : m.role == "system"  ? ir::Role::system
                                    : ir::Role::user;  // results: the endpoint knows no tool role
    im.parts.push_back(ir::TextPart{std::move(m.content)});
    out.messages.push_back(std::move(im));
  }
  return out;
}

Result<std::string> render_prompt(const PromptRenderer& r, const ir::Request& req) {
  auto msgs = render_messages(r, req);
  if (!msgs) return std::move(msgs).error();
  std::string out(r.prompt_start());
  for (const auto& m : *msgs) out += r.turn(m);
  out += r.generation_prompt();
  return out;
}

}  // namespace toolwire::textformats
