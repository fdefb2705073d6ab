// Linear time on the paths real output takes: a long reasoning block that
// never closes (also when the prompt opened it), and long prose full of
// markers named in passing and code fences (each one looked at ahead a
// bounded number of bytes). Fed in 4-byte tokens, 4× the input must cost
// well under the 16× a quadratic parser would (best of three runs, so a
// busy machine does not make it fail).
#include <algorithm>
#include <ctime>
#include <string>

#include <gtest/gtest.h>

#include "support.h"

namespace toolwire::textformats::testing {
namespace {

double seconds_to_parse(std::string_view family, const std::string& in, ParserOptions o) {
  double best = 1e9;
  for (int run = 0; run < 3; ++run) {
    auto p = make_parser(family, nullptr, o).value();
    ParseOutput out;
    std::clock_t t0 = std::clock();  // CPU time: other processes do not count
    for (size_t i = 0; i < in.size(); i += 4) {
      p->feed(std::string_view(in).substr(i, 4), out);
      if (out.events.size() > 1024) out.events.clear();  // the events are not what is timed
    }
    p->finish(out);
    best = std::min(best, static_cast<double>(std::clock() - t0) / CLOCKS_PER_SEC);
  }
  return best;
}

std::string repeat(std::string_view head, std::string_view unit, size_t size) {
  std::string s(head);
  while (s.size() < size) s += unit;
  return s;
}

void expect_linear(std::string_view family, std::string_view head, std::string_view unit,
                   ParserOptions o = {}) {
  constexpr size_t kSmall = 64 << 10;
  double small = seconds_to_parse(family, repeat(head, unit, kSmall), o);
  double large = seconds_to_parse(family, repeat(head, unit, 4 * kSmall), o);
  // Linear: ~4×. Quadratic: ~16×. Tiny times are noise: 2 ms is always fine.
  EXPECT_LT(large, std::max(8 * small, 0.002)) << family << " " << unit;
}

TEST(Linear, UnclosedReasoningEveryFamily) {
  for (std::string_view f : families()) {
    expect_linear(f, "<think>", "thinking about < tags [and] {braces} ``` ");
    expect_linear(f, "", "the prompt opened this block; ", {true});
  }
  expect_linear("mistral_v11", "[THINK]", "thinking [about] it ");
  expect_linear("command_r7b", "<|START_THINKING|>", "thinking <|about|> it ");
  expect_linear("harmony", "<|channel|>analysis<|message|>", "thinking <|about|> it ");
}

TEST(Linear, MarkersNamedInProseEveryFamily) {
  const std::string prose =
      "Use <tool_call> tags, <function=name> then JSON, [TOOL_CALLS] name, <|tool_call|> "
      "lists, >>> parts, ```json fences\n``` and {\"a\": 1} [1] (x) <|python_tag|> ";
  for (std::string_view f : families()) expect_linear(f, "Some prose first. ", prose);
}

}  // namespace
}  // namespace toolwire::textformats::testing
