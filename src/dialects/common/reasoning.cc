// The reasoning's effort words and budgets (reasoning.h).
#include "dialects/common/reasoning.h"

namespace toolwire::dialects {
namespace {

// Effort word → thinking budget. The budgets follow the ones Google's OpenAI
// compatibility layer documents for Gemini 2.5 (low 1024, medium 8192, high
// 24576); 1024 is also Anthropic's smallest budget.
struct EffortBudget {
  std::string_view effort;
  int64_t budget;
};
constexpr EffortBudget kEffortBudgets[] = {
    {"none", 0},     {"minimal", 1024}, {"low", 1024},  {"medium", 8192},
    {"high", 24576}, {"xhigh", 32768},  {"max", 32768},
};

}  // namespace

std::optional<int64_t> budget_for_effort(std::string_view effort) {
  for (const EffortBudget& e : kEffortBudgets)
    if (e.effort == effort) return e.budget;
  return std::nullopt;
}

std::string_view effort_for_budget(int64_t budget) {
  if (budget <= 0) return "none";
  if (budget <= 1024) return "low";
  if (budget <= 8192) return "medium";
  return "high";
}

std::string_view reasoning_path(std::string_view dialect) {
  if (dialect == "openai_chat") return "$.reasoning_effort";
  if (dialect == "openai_responses") return "$.reasoning";
  if (dialect == "anthropic_messages") return "$.thinking";
  if (dialect == "gemini") return "$.generationConfig.thinkingConfig";
  return "$.reasoning";
}

bool effort_in(std::string_view effort, std::span<const std::string_view> allowed) {
  for (std::string_view a : allowed)
    if (a == effort) return true;
  return false;
}

void warn_reasoning(Warnings& warnings, std::string_view code, std::string_view source_dialect,
                    std::string message) {
  warn(warnings, std::string(code), std::string(reasoning_path(source_dialect)),
       std::move(message));
}

}  // namespace toolwire::dialects
