// The one list of families.
#include <array>
#include <utility>

#include "textformats/families.h"
#include "textformats/parser_base.h"

namespace toolwire::textformats {

namespace {

struct Family {
  std::string_view name;
  ParserPtr (*make)(const ToolSet*);
};

constexpr std::array kFamilies{
    Family{"hermes", make_hermes},
    Family{"qwen3_coder", make_qwen3_coder},
    Family{"llama3_json", make_llama3_json},
    Family{"llama3_builtin", make_llama3_builtin},
    Family{"pythonic", make_pythonic},
    Family{"mistral_nemo", make_mistral_nemo},
    Family{"mistral_v11", make_mistral_v11},
    Family{"deepseek_r1", make_deepseek_r1},
    Family{"deepseek_v31", make_deepseek_v31},
    Family{"granite", make_granite},
    Family{"command_r7b", make_command_r7b},
    Family{"functionary_v31", make_functionary_v31},
    Family{"functionary_v32", make_functionary_v32},
    Family{"harmony", make_harmony},
    Family{"kimi_k2", make_kimi_k2},
    Family{"glm45", make_glm45},
    Family{"generic_json", make_generic_json},
    Family{"envelope", make_envelope},
};

constexpr auto kNames = [] {
  std::array<std::string_view, kFamilies.size()> names{};
  for (size_t i = 0; i < kFamilies.size(); ++i) names[i] = kFamilies[i].name;
  return names;
}();

}  // namespace

std::span<const std::string_view> families() { return kNames; }

Result<std::unique_ptr<TextFormatParser>> make_parser(std::string_view family, const ToolSet* tools,
                                                      ParserOptions options) {
  for (const Family& f : kFamilies) {
    if (f.name != family) continue;
    ParserPtr p = f.make(tools);
    if (options.reasoning_open) static_cast<ParserBase&>(*p).start_in_reasoning();
    return p;
  }
  std::string known;
  for (std::string_view n : kNames) known += (known.empty() ? "" : ", ") + std::string(n);
  return make_error(ErrorCode::not_found,
                    "unknown tool format '" + std::string(family) + "' (known: " + known + ")");
}

}  // namespace toolwire::textformats
