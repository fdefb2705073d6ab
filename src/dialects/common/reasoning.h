// reasoning.h — the request's reasoning (ir::BasicReasoning) between the
// dialects' spellings: an effort word (OpenAI Chat `reasoning_effort`,
// Responses `reasoning.effort`, Anthropic `output_config.effort`, Gemini
// `thinkingLevel`), a token budget (Anthropic `thinking.budget_tokens`, Gemini
// `thinkingBudget`) and an on/off switch. A word becomes a budget and back
// through one table (kEffortBudgets); each such conversion is an
// approximation, and says so (`approximated_reasoning`).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "dialects/common/style.h"
#include "toolwire/ir/request.h"

namespace toolwire::dialects {

// The budget an effort word stands for (nullopt: a word not in the table).
std::optional<int64_t> budget_for_effort(std::string_view effort);
// The effort word nearest a budget (0: "none").
std::string_view effort_for_budget(int64_t budget);
// Where `dialect` spells the reasoning: the path of a warning about it.
std::string_view reasoning_path(std::string_view dialect);

// The effort words each family takes.
inline constexpr std::string_view kOpenAiEfforts[] = {"none",   "minimal", "low",
                                                      "medium", "high",    "xhigh"};
inline constexpr std::string_view kAnthropicEfforts[] = {"low", "medium", "high", "xhigh", "max"};
inline constexpr std::string_view kGeminiLevels[] = {"minimal", "low", "medium", "high"};

// Whether `effort` is one of the words in `allowed`.
bool effort_in(std::string_view effort, std::span<const std::string_view> allowed);

void warn_reasoning(Warnings& warnings, std::string_view code, std::string_view source_dialect,
                    std::string message);

// The effort word to write for a target that takes one of `allowed`
// (OpenAI's): the request's own word, or one made from its budget or switch
// (with a warning). Empty: nothing to write (also with a warning when the
// request asked for something the target cannot say).
template <class S>
std::string_view effort_to_write(const ir::BasicReasoning<S>& r,
                                 std::span<const std::string_view> allowed, std::string_view target,
                                 std::string_view source, Warnings& warnings) {
  const std::string_view effort = r.effort;
  if (!effort.empty()) {
    if (effort_in(effort, allowed)) return effort;
    if (effort == "max" && effort_in("xhigh", allowed)) {
      warn_reasoning(warnings, "approximated_reasoning", source,
                     "effort 'max' sent to " + std::string(target) + " as 'xhigh'");
      return "xhigh";
    }
    warn_reasoning(warnings, "dropped_reasoning", source,
                   "effort '" + std::string(effort) + "' has no " + std::string(target) +
                       " equivalent; not sent");
    return {};
  }
  if (r.budget_tokens && *r.budget_tokens > 0) {
    const std::string_view made = effort_for_budget(*r.budget_tokens);
    warn_reasoning(warnings, "approximated_reasoning", source,
                   "a thinking budget of " + std::to_string(*r.budget_tokens) + " tokens sent to " +
                       std::string(target) + " as effort '" + std::string(made) + "'");
    return made;
  }
  if (r.enabled == false || r.budget_tokens)  // a budget of 0: off
    warn_reasoning(warnings, "approximated_reasoning", source,
                   "thinking turned off has no spelling every " + std::string(target) +
                       " model takes; nothing sent, the model's default applies");
  return {};  // adaptive / dynamic: the model's default effort
}

// The token budget to write for a target that takes one: the request's own,
// or one made from its effort word (with a warning). nullopt: nothing to
// write; `enabled` then says whether the request asked for thinking without a
// budget (adaptive, dynamic).
template <class S>
std::optional<int64_t> budget_to_write(const ir::BasicReasoning<S>& r, std::string_view target,
                                       std::string_view source, Warnings& warnings) {
  if (r.budget_tokens) return r.budget_tokens;
  const std::string_view effort = r.effort;
  if (effort.empty()) return std::nullopt;
  const std::optional<int64_t> made = budget_for_effort(effort);
  if (!made) {
    warn_reasoning(warnings, "dropped_reasoning", source,
                   "effort '" + std::string(effort) + "' has no " + std::string(target) +
                       " equivalent; not sent");
    return std::nullopt;
  }
  if (*made > 0)
    warn_reasoning(warnings, "approximated_reasoning", source,
                   "effort '" + std::string(effort) + "' sent to " + std::string(target) +
                       " as a thinking budget of " + std::to_string(*made) + " tokens");
  return made;
}

}  // namespace toolwire::dialects
