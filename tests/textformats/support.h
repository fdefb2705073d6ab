// Helpers for the text-format tests: run a parser over pieces, normalise the
// events (adjacent deltas of one kind merged) so splits can be compared.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "toolwire/textformats/parser.h"
#include "toolwire/textformats/summary.h"
#include "toolwire/textformats/tool_set.h"

namespace toolwire::textformats::testing {

inline ParseOutput run_pieces(std::string_view family, const std::vector<std::string_view>& pieces,
                              const ToolSet* tools, ParserOptions options = {}) {
  auto p = make_parser(family, tools, options);
  EXPECT_TRUE(p.ok());
  ParseOutput out;
  if (!p) return out;
  for (std::string_view piece : pieces) (*p)->feed(piece, out);
  (*p)->finish(out);
  return out;
}

// One line per event, deltas merged: "text:...", "think:...", "start:0:id:name",
// "args:0:...", "end:0".
inline std::vector<std::string> normalized(const ParseOutput& out) {
  std::vector<std::string> lines;
  std::string kind;
  auto append = [&](const std::string& k, const std::string& s) {
    if (!lines.empty() && kind == k) {
      lines.back() += s;
    } else {
      lines.push_back(k + s);
      kind = k;
    }
  };
  for (const auto& event : out.events) {
    if (auto* t = std::get_if<ir::TextDelta>(&event)) {
      append("text:", t->text);
    } else if (auto* r = std::get_if<ir::ThinkingDelta>(&event)) {
      append("think:", r->text);
    } else if (auto* s = std::get_if<ir::ToolCallStart>(&event)) {
      lines.push_back("start:" + std::to_string(s->index) + ":" + s->id + ":" + s->name);
      kind.clear();
    } else if (auto* d = std::get_if<ir::ToolCallDelta>(&event)) {
      append("args:" + std::to_string(d->index) + ":", d->fragment);
    } else if (auto* e = std::get_if<ir::ToolCallEnd>(&event)) {
      lines.push_back("end:" + std::to_string(e->index));
      kind.clear();
    } else {
      lines.push_back("other");
      kind.clear();
    }
  }
  for (const auto& e : out.errors)
    lines.push_back("error:" + std::to_string(e.call_index) + ":" + e.message);
  return lines;
}

}  // namespace toolwire::textformats::testing
