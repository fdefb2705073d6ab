// libFuzzer: the text-format parsers (src/textformats). The first byte picks
// the family (and whether the test tool set is used); the rest is the model
// output, parsed in one piece and again in three pieces cut at bytes derived
// from the data. Both runs must give the same events (deltas of one kind
// merged) and errors, and every call that ended must carry a JSON object.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "toolwire/textformats/parser.h"
#include "toolwire/textformats/tool_set.h"

namespace {

using namespace toolwire;

std::vector<std::string> normalized(const textformats::ParseOutput& out) {
  std::vector<std::string> lines;
  int kind = -1, index = -1;
  for (const auto& e : out.events) {
    int k = static_cast<int>(e.index());
    std::string_view piece;
    int i = -1;
    if (auto* t = std::get_if<ir::TextDelta>(&e))
      piece = t->text;
    else if (auto* r = std::get_if<ir::ThinkingDelta>(&e))
      piece = r->text;
    else if (auto* d = std::get_if<ir::ToolCallDelta>(&e))
      piece = d->fragment, i = d->index;
    bool delta = std::holds_alternative<ir::TextDelta>(e) ||
                 std::holds_alternative<ir::ThinkingDelta>(e) ||
                 std::holds_alternative<ir::ToolCallDelta>(e);
    if (delta && !lines.empty() && k == kind && i == index) {
      lines.back() += piece;
      continue;
    }
    std::string line = std::to_string(k) + ":";
    if (auto* s = std::get_if<ir::ToolCallStart>(&e))
      line += s->id + "|" + s->name;
    else if (auto* n = std::get_if<ir::ToolCallEnd>(&e))
      line += std::to_string(n->index);
    else
      line += std::to_string(i) + ":" + std::string(piece);
    lines.push_back(std::move(line));
    kind = delta ? k : -1;
    index = i;
  }
  for (const auto& err : out.errors)
    lines.push_back("E" + std::to_string(err.call_index) + err.message);
  return lines;
}

const textformats::ToolSet& test_tools() {
  static const textformats::ToolSet set = textformats::ToolSet::from_json(R"([
        {"name":"get_weather","parameters":{"type":"object","properties":{
          "city":{"type":"string"},"days":{"type":"integer"}},"required":["city"]}},
        {"name":"set_flag","parameters":{"type":"object","properties":{"on":{"type":"boolean"}}}},
        {"name":"configure","parameters":{"type":"object","properties":{
          "options":{"type":"object"},"tags":{"type":"array"}}}}])")
                                              .value();
  return set;
}

textformats::ParseOutput run(std::string_view family, const textformats::ToolSet* t,
                             const std::vector<std::string_view>& pieces) {
  auto p = textformats::make_parser(family, t);
  textformats::ParseOutput out;
  for (std::string_view piece : pieces) (*p)->feed(piece, out);
  (*p)->finish(out);
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  auto families = textformats::families();
  std::string_view family = families[data[0] % families.size()];
  const textformats::ToolSet* t = (data[0] / families.size()) % 2 ? &test_tools() : nullptr;
  std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);

  textformats::ParseOutput whole = run(family, t, {text});
  size_t a = text.empty() ? 0 : (size * 7919) % (text.size() + 1);
  size_t b = text.empty() ? 0 : (size * 104729 + data[size - 1]) % (text.size() + 1);
  if (a > b) std::swap(a, b);
  textformats::ParseOutput split =
      run(family, t, {text.substr(0, a), text.substr(a, b - a), text.substr(b)});
  if (normalized(whole) != normalized(split)) {
    std::fprintf(stderr, "%.*s: one piece and cuts at %zu, %zu differ\n",
                 static_cast<int>(family.size()), family.data(), a, b);
    std::abort();
  }
  std::vector<std::string> args(64);
  for (const auto& e : whole.events) {
    if (auto* d = std::get_if<ir::ToolCallDelta>(&e); d && d->index < 64)
      args[d->index] += d->fragment;
    if (auto* n = std::get_if<ir::ToolCallEnd>(&e); n && n->index < 64) {
      auto j = nlohmann::json::parse(args[n->index], nullptr, false);
      if (!j.is_object()) {
        std::fprintf(stderr, "call %d ended without a JSON object: %s\n", n->index,
                     args[n->index].c_str());
        std::abort();
      }
    }
  }
  return 0;
}
