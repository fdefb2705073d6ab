// Where each dialect spells the shared sampling fields (sampling.h).
#include "dialects/common/sampling.h"

namespace toolwire::dialects {

std::string_view sampling_path(std::string_view dialect, std::string_view ir_field) {
  if (dialect == "openai_chat") {
    if (ir_field == "seed") return "$.seed";
    if (ir_field == "frequency_penalty") return "$.frequency_penalty";
    if (ir_field == "presence_penalty") return "$.presence_penalty";
  } else if (dialect == "anthropic_messages") {
    if (ir_field == "top_k") return "$.top_k";
  } else if (dialect == "gemini") {
    if (ir_field == "seed") return "$.generationConfig.seed";
    if (ir_field == "top_k") return "$.generationConfig.topK";
    if (ir_field == "frequency_penalty") return "$.generationConfig.frequencyPenalty";
    if (ir_field == "presence_penalty") return "$.generationConfig.presencePenalty";
  }
  return {};
}

}  // namespace toolwire::dialects
