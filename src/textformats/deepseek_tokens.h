// DeepSeek's tool-call tokens (full-width bars, ▁ for spaces), which the
// deepseek parser reads and its renderer writes.
#pragma once

#include <string_view>

namespace toolwire::textformats::deepseek {

constexpr std::string_view kCallsBegin = "<｜tool▁calls▁begin｜>";
constexpr std::string_view kCallsEnd = "<｜tool▁calls▁end｜>";
constexpr std::string_view kCallBegin = "<｜tool▁call▁begin｜>";
constexpr std::string_view kSep = "<｜tool▁sep｜>";
constexpr std::string_view kCallEnd = "<｜tool▁call▁end｜>";

}  // namespace toolwire::textformats::deepseek
