// One factory per family (src/textformats/<family>.cc); registry.cc lists them.
#pragma once

#include <memory>

#include "toolwire/textformats/parser.h"

namespace toolwire::textformats {

using ParserPtr = std::unique_ptr<TextFormatParser>;

ParserPtr make_hermes(const ToolSet* tools);
ParserPtr make_qwen3_coder(const ToolSet* tools);
ParserPtr make_llama3_json(const ToolSet* tools);
ParserPtr make_llama3_builtin(const ToolSet* tools);
ParserPtr make_pythonic(const ToolSet* tools);
ParserPtr make_mistral_nemo(const ToolSet* tools);
ParserPtr make_mistral_v11(const ToolSet* tools);
ParserPtr make_deepseek_r1(const ToolSet* tools);
ParserPtr make_deepseek_v31(const ToolSet* tools);
ParserPtr make_granite(const ToolSet* tools);
ParserPtr make_command_r7b(const ToolSet* tools);
ParserPtr make_functionary_v31(const ToolSet* tools);
ParserPtr make_functionary_v32(const ToolSet* tools);
ParserPtr make_harmony(const ToolSet* tools);
ParserPtr make_kimi_k2(const ToolSet* tools);
ParserPtr make_glm45(const ToolSet* tools);
ParserPtr make_generic_json(const ToolSet* tools);
ParserPtr make_envelope(const ToolSet* tools);

}  // namespace toolwire::textformats
