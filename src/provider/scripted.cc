// ScriptedProvider: rules over the last message → IR stream events.
#include "toolwire/provider/scripted.h"

#include <algorithm>
#include <chrono>
#include <regex>
#include <string>
#include <variant>

#include <nlohmann/json.hpp>

#include "toolwire/core/json_depth.h"
#include "toolwire/ir/accumulator.h"

namespace toolwire::provider {

struct ScriptedProvider::Compiled {
  Script script;
  std::vector<std::optional<std::regex>> patterns;  // nullopt: empty pattern (match all)
  std::vector<bool> valid;
};

namespace {

using json = nlohmann::json;

// The text parts of `parts` (a message's, or a tool result's content), one
// per line.
template <class Parts>
std::string text_lines(const Parts& parts) {
  std::string out;
  for (const auto& p : parts)
    if (auto* t = std::get_if<ir::TextPart>(&p)) {
      if (!out.empty()) out += "\n";
      out += t->text;
    }
  return out;
}
std::string text_of(const ir::Message& m) { return text_lines(m.parts); }
std::string result_text(const ir::ToolResultPart& r) { return text_lines(r.content); }

struct Bindings {
  std::smatch match;
  bool has_match = false;
  std::string user;
  std::string result;
};

std::string expand(std::string_view tpl, const Bindings& b) {
  std::string out;
  for (size_t i = 0; i < tpl.size(); ++i) {
    if (tpl[i] == '$' && i + 1 < tpl.size() && tpl[i + 1] >= '0' && tpl[i + 1] <= '9') {
      size_t g = static_cast<size_t>(tpl[i + 1] - '0');
      if (b.has_match && g < b.match.size()) out += b.match[g].str();
      ++i;
    } else if (tpl.substr(i, 8) == "{{user}}") {
      out += b.user;
      i += 7;
    } else if (tpl.substr(i, 10) == "{{result}}") {
      out += b.result;
      i += 9;
    } else {
      out.push_back(tpl[i]);
    }
  }
  return out;
}

void expand_json(json& v, const Bindings& b) {
  if (v.is_string()) {
    std::string tpl = v.get<std::string>();
    std::string out = expand(tpl, b);
    // A value that is just "$N" becomes a number when the capture is an integer.
    bool whole = tpl.size() == 2 && tpl[0] == '$' && tpl[1] >= '0' && tpl[1] <= '9';
    if (whole && !out.empty() && out.size() < 16 &&
        std::all_of(out.begin(), out.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      v = std::stoll(out);
      return;
    }
    v = std::move(out);
  } else if (v.is_object() || v.is_array()) {
    for (auto& child : v) expand_json(child, b);
  }
}

// The text split at word ends into pieces of about `n` characters.
std::vector<std::string> chunks(const std::string& s, size_t n) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < s.size()) {
    size_t end = std::min(s.size(), start + std::max<size_t>(n, 1));
    while (end < s.size() && s[end] != ' ' && s[end] != '\n' && end - start < 4 * n) ++end;
    // Never split a UTF-8 sequence.
    while (end < s.size() && (static_cast<unsigned char>(s[end]) & 0xC0) == 0x80) ++end;
    out.push_back(s.substr(start, end - start));
    start = end;
  }
  return out;
}

int64_t approx_tokens(size_t chars) { return static_cast<int64_t>((chars + 3) / 4); }

size_t request_chars(const ir::Request& r) {
  size_t n = 0;
  for (const auto& s : r.system) n += s.text.size();
  for (const auto& m : r.messages)
    for (const auto& p : m.parts) {
      if (auto* t = std::get_if<ir::TextPart>(&p)) n += t->text.size();
      if (auto* c = std::get_if<ir::ToolCallPart>(&p)) n += c->arguments.size() + c->name.size();
      if (auto* r2 = std::get_if<ir::ToolResultPart>(&p)) n += result_text(*r2).size();
    }
  for (const auto& t : r.tools) n += t.name.size() + t.description.size() + t.input_schema.size();
  return n;
}

Result<ScriptRule> parse_rule(const json& j, const std::string& path) {
  if (!j.is_object())
    return make_error(ErrorCode::invalid_argument, "a rule must be an object", path);
  ScriptRule r;
  auto str = [&](const char* key, std::string& out) -> Status {
    auto it = j.find(key);
    if (it == j.end()) return Status::Ok();
    if (!it->is_string())
      return make_error(ErrorCode::invalid_argument, "must be a string", path + "." + key);
    out = it->get<std::string>();
    return Status::Ok();
  };
  TW_TRY(str("user_pattern", r.user_pattern));
  TW_TRY(str("after_tool", r.after_tool));
  TW_TRY(str("reply", r.reply));
  TW_TRY(str("error", r.error));
  if (auto it = j.find("calls"); it != j.end()) {
    if (!it->is_array())
      return make_error(ErrorCode::invalid_argument, "must be an array", path + ".calls");
    for (size_t i = 0; i < it->size(); ++i) {
      const json& c = (*it)[i];
      std::string cp = path + ".calls[" + std::to_string(i) + "]";
      if (!c.is_object() || !c.contains("name") || !c["name"].is_string())
        return make_error(ErrorCode::invalid_argument, "a call needs a string \"name\"", cp);
      ScriptedCall call;
      call.name = c["name"].get<std::string>();
      if (c.contains("arguments")) {
        if (!c["arguments"].is_object())
          return make_error(ErrorCode::invalid_argument, "must be an object", cp + ".arguments");
        call.arguments = c["arguments"].dump();
      }
      r.calls.push_back(std::move(call));
    }
  }
  if (!r.user_pattern.empty()) {
    try {
      std::regex re(r.user_pattern, std::regex::ECMAScript | std::regex::icase);
    } catch (const std::regex_error& e) {
      return make_error(ErrorCode::invalid_argument, std::string("invalid regex: ") + e.what(),
                        path + ".user_pattern");
    }
  }
  return r;
}

}  // namespace

Result<Script> parse_script(std::string_view text) {
  auto parsed = parse_json_object<json>(text, "script");
  if (!parsed) return parsed.error();
  json j = std::move(*parsed);
  Script s;
  if (auto it = j.find("fallback"); it != j.end()) {
    if (!it->is_string())
      return make_error(ErrorCode::invalid_argument, "must be a string", "$.fallback");
    s.fallback = it->get<std::string>();
  }
  auto rules = j.find("rules");
  if (rules == j.end() || !rules->is_array())
    return make_error(ErrorCode::invalid_argument, "an array of rules is required", "$.rules");
  for (size_t i = 0; i < rules->size(); ++i) {
    auto r = parse_rule((*rules)[i], "$.rules[" + std::to_string(i) + "]");
    if (!r) return std::move(r).error();
    s.rules.push_back(std::move(*r));
  }
  return s;
}

ScriptedProvider::ScriptedProvider(Script script, ScriptedOptions options)
    : compiled_(std::make_unique<Compiled>()), options_(std::move(options)) {
  caps_.thinking = true;  // it never produces any, but takes them back unchanged
  for (const auto& rule : script.rules) {
    std::optional<std::regex> re;
    bool ok = true;
    if (!rule.user_pattern.empty()) {
      try {
        re.emplace(rule.user_pattern, std::regex::ECMAScript | std::regex::icase);
      } catch (const std::regex_error&) {
        ok = false;  // parse_script reports these; a hand-built bad rule never matches
      }
    }
    compiled_->patterns.push_back(std::move(re));
    compiled_->valid.push_back(ok);
  }
  compiled_->script = std::move(script);
}

ScriptedProvider::~ScriptedProvider() = default;

Result<std::vector<ir::StreamEvent>> ScriptedProvider::respond(const ir::Request& req) const {
  Bindings b;
  const ir::Message* last = req.messages.empty() ? nullptr : &req.messages.back();
  for (auto it = req.messages.rbegin(); it != req.messages.rend(); ++it)
    if (it->role == ir::Role::user) {
      b.user = text_of(*it);
      break;
    }

  // Tool names whose results end the conversation, with their result text.
  std::vector<std::pair<std::string, std::string>> answered;
  if (last && last->role == ir::Role::tool) {
    for (const auto& p : last->parts) {
      auto* r = std::get_if<ir::ToolResultPart>(&p);
      if (!r) continue;
      std::string name;
      for (const auto& m : req.messages)
        for (const auto& q : m.parts)
          if (auto* c = std::get_if<ir::ToolCallPart>(&q); c && c->id == r->call_id) name = c->name;
      answered.emplace_back(name, result_text(*r));
    }
  }

  const Script& script = compiled_->script;
  const ScriptRule* chosen = nullptr;
  std::vector<ScriptedCall> chosen_calls;
  for (size_t i = 0; i < script.rules.size() && !chosen; ++i) {
    const ScriptRule& rule = script.rules[i];
    if (!compiled_->valid[i]) continue;
    Bindings cand = b;
    if (rule.after_tool.empty()) {
      if (!last || last->role != ir::Role::user) continue;
    } else {
      bool hit = false;
      for (const auto& [name, text] : answered)
        if (rule.after_tool == "*" || rule.after_tool == name) {
          if (!cand.result.empty()) cand.result += "\n";
          cand.result += text;
          hit = true;
        }
      if (!hit) continue;
    }
    if (const auto& re = compiled_->patterns[i]) {
      // Match on a copy owned by `cand` so the submatches stay valid.
      if (!std::regex_search(cand.user, cand.match, *re)) continue;
      cand.has_match = true;
    }
    // Templated call names ("$1") pick tools from the user's words; one that
    // names no offered tool is dropped, and a rule left with no call does
    // not match (so "use the tools" never calls a tool named "tools").
    std::vector<ScriptedCall> eff;
    bool templated = false;
    for (const auto& c : rule.calls) {
      if (c.name.find('$') == std::string::npos) {
        eff.push_back(c);
        continue;
      }
      templated = true;
      ScriptedCall e = c;
      e.name = expand(c.name, cand);
      while (!e.name.empty() && e.name.back() == '.') e.name.pop_back();  // end of a sentence
      // A dotted name ("agent.photo") is offered under its wire name, dots as
      // "__" (the tools library's rule, tools/names.h; providers do not link it).
      for (size_t at; (at = e.name.find('.')) != std::string::npos;) e.name.replace(at, 1, "__");
      bool offered = std::any_of(req.tools.begin(), req.tools.end(),
                                 [&](const ir::ToolDefinition& t) { return t.name == e.name; });
      bool dup = std::any_of(eff.begin(), eff.end(),
                             [&](const ScriptedCall& x) { return x.name == e.name; });
      if (!e.name.empty() && offered && !dup) eff.push_back(std::move(e));
    }
    if (templated && eff.empty()) continue;
    chosen_calls = std::move(eff);
    chosen = &rule;
    b = std::move(cand);
    if (b.has_match)
      std::regex_search(b.user, b.match, *compiled_->patterns[i]);  // rebind to b.user
  }

  std::vector<ir::StreamEvent> ev;
  ev.push_back(
      ir::MessageStart{"msg_scripted_" + std::to_string(req.messages.size()), options_.model, 0});
  if (chosen && !chosen->error.empty()) {
    ev.push_back(ir::ErrorEvent{chosen->error, "scripted upstream error: " + chosen->error});
    return ev;
  }
  std::string text;
  if (chosen) {
    text = expand(chosen->reply, b);
  } else if (!answered.empty()) {
    for (const auto& a : answered)
      text += (text.empty() ? "" : "\n") + a.second;  // echo the results
  } else {
    text = script.fallback;
  }
  for (auto& piece : chunks(text, options_.chunk_chars))
    ev.push_back(ir::TextDelta{std::move(piece)});
  size_t out_chars = text.size();
  int index = 0;
  if (chosen) {
    for (const auto& call : chosen_calls) {
      json args = parse_json_bounded<json>(call.arguments);
      if (args.is_discarded()) args = json::object();
      expand_json(args, b);
      std::string arg_text = args.dump();
      out_chars += arg_text.size() + call.name.size();
      std::string id =
          "call_" + std::to_string(req.messages.size()) + "_" + std::to_string(index + 1);
      ev.push_back(ir::ToolCallStart{index, id, call.name});
      for (auto& piece : chunks(arg_text, options_.chunk_chars))
        ev.push_back(ir::ToolCallDelta{index, std::move(piece)});
      ev.push_back(ir::ToolCallEnd{index});
      ++index;
    }
  }
  ir::Usage usage;
  usage.input_tokens = approx_tokens(request_chars(req));
  usage.output_tokens = approx_tokens(out_chars);
  usage.estimated = true;
  ev.push_back(ir::UsageEvent{usage});
  ir::FinishReason fin;
  fin.kind = index > 0 ? ir::FinishReason::Kind::tool_calls : ir::FinishReason::Kind::stop;
  fin.raw = index > 0 ? "tool_calls" : "stop";
  ev.push_back(ir::Finish{fin});
  return ev;
}

namespace {

Result<Generation> fold(std::vector<ir::StreamEvent>& events, const EventCallback* on_event,
                        std::chrono::steady_clock::time_point start, Warnings warnings) {
  ir::StreamAccumulator acc;
  for (const auto& e : events) {
    if (on_event && *on_event) (*on_event)(e);
    acc.add(e);
  }
  if (acc.error())
    return make_error(ErrorCode::unavailable, acc.error()->type + ": " + acc.error()->message);
  Generation g;
  g.response = std::move(acc).take();
  g.response.source_dialect = "scripted";
  g.warnings = std::move(warnings);
  g.timing.total = std::chrono::duration_cast<std::chrono::microseconds>(
      std::chrono::steady_clock::now() - start);
  g.timing.time_to_first_token = g.timing.total;
  return g;
}

}  // namespace

ProviderCall ScriptedProvider::generate(ir::Request request, DoneCallback done) {
  return stream(std::move(request), {}, std::move(done));
}

ProviderCall ScriptedProvider::stream(ir::Request request, EventCallback on_event,
                                      DoneCallback done) {
  auto start = std::chrono::steady_clock::now();
  Warnings warnings;
  auto adapted = adapt_request(std::move(request), caps_, name(), warnings);
  if (adapted)
    if (auto refused = adapted->on_loss.check(warnings, "adapting it for " + std::string(name())))
      adapted = std::move(*refused);
  if (!adapted) {
    done(std::move(adapted).error());
    return ProviderCall();
  }
  auto events = respond(*adapted);
  if (!events) {
    done(std::move(events).error());
    return ProviderCall();
  }
  done(fold(*events, &on_event, start, std::move(warnings)));
  return ProviderCall();
}

}  // namespace toolwire::provider
