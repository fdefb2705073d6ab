#include "toolwire/textformats/summary.h"

#include <type_traits>

#include "toolwire/core/json_writer.h"

namespace toolwire::textformats {

ParseSummary summarize(const ParseOutput& out) {
  ParseSummary s;
  for (const auto& event : out.events) {
    std::visit(
        [&](const auto& e) {
          using T = std::decay_t<decltype(e)>;
          if constexpr (std::is_same_v<T, ir::TextDelta>) {
            s.content += e.text;
          } else if constexpr (std::is_same_v<T, ir::ThinkingDelta>) {
            s.reasoning += e.text;
          } else if constexpr (std::is_same_v<T, ir::ToolCallStart>) {
            s.tool_calls.push_back(ParsedCall{e.index, e.id, e.name, {}, false});
          } else if constexpr (std::is_same_v<T, ir::ToolCallDelta>) {
            for (auto& c : s.tool_calls)
              if (c.index == e.index) c.arguments += e.fragment;
          } else if constexpr (std::is_same_v<T, ir::ToolCallEnd>) {
            for (auto& c : s.tool_calls)
              if (c.index == e.index) c.complete = true;
          }
        },
        event);
  }
  s.errors = out.errors;
  return s;
}

Result<ParseSummary> parse_text(std::string_view family, std::string_view text,
                                const ToolSet* tools) {
  auto parser = make_parser(family, tools);
  if (!parser) return parser.error();
  ParseOutput out;
  (*parser)->feed(text, out);
  (*parser)->finish(out);
  return summarize(out);
}

std::string to_json(const ParseSummary& s) {
  std::string out;
  JsonWriter w(out);
  w.begin_object();
  w.field("content", std::string_view(s.content));
  w.field("reasoning", std::string_view(s.reasoning));
  w.key("tool_calls");
  w.begin_array();
  for (const auto& c : s.tool_calls) {
    if (!c.complete) continue;
    w.begin_object();
    if (!c.id.empty()) w.field("id", std::string_view(c.id));
    w.field("name", std::string_view(c.name));
    w.field_raw("arguments", c.arguments);  // a complete call's arguments are checked JSON
    w.end_object();
  }
  w.end_array();
  w.key("errors");
  w.begin_array();
  for (const auto& e : s.errors) w.string(e.message);
  w.end_array();
  w.end_object();
  return out;
}

std::string event_to_json(const ir::StreamEvent& event) {
  std::string out;
  JsonWriter w(out);
  w.begin_object();
  std::visit(
      [&](const auto& e) {
        using T = std::decay_t<decltype(e)>;
        if constexpr (std::is_same_v<T, ir::TextDelta>) {
          w.field("type", "text_delta");
          w.field("text", std::string_view(e.text));
        } else if constexpr (std::is_same_v<T, ir::ThinkingDelta>) {
          w.field("type", "reasoning_delta");
          w.field("text", std::string_view(e.text));
        } else if constexpr (std::is_same_v<T, ir::ToolCallStart>) {
          w.field("type", "tool_call_start");
          w.field("index", e.index);
          if (!e.id.empty()) w.field("id", std::string_view(e.id));
          w.field("name", std::string_view(e.name));
        } else if constexpr (std::is_same_v<T, ir::ToolCallDelta>) {
          w.field("type", "tool_call_delta");
          w.field("index", e.index);
          w.field("arguments", std::string_view(e.fragment));
        } else if constexpr (std::is_same_v<T, ir::ToolCallEnd>) {
          w.field("type", "tool_call_end");
          w.field("index", e.index);
        } else {
          w.field("type", "other");
        }
      },
      event);
  w.end_object();
  return out;
}

std::string error_to_json(const FormatError& e) {
  std::string out;
  JsonWriter w(out);
  w.begin_object();
  w.field("type", "error");
  if (e.call_index >= 0) w.field("index", e.call_index);
  w.field("message", std::string_view(e.message));
  w.end_object();
  return out;
}

}  // namespace toolwire::textformats
