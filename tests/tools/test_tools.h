// Small helpers shared by the tools tests.
#pragma once

#include <string>

#include "toolwire/ir/parts.h"
#include "toolwire/tools/registry.h"

namespace tools_test {

inline std::string text_of(const toolwire::ir::ToolResultPart& r) {
  std::string out;
  for (const auto& c : r.content)
    if (auto* t = std::get_if<toolwire::ir::TextPart>(&c)) out += t->text;
  return out;
}

inline toolwire::ir::ToolCallPart call(std::string id, std::string name, std::string args) {
  toolwire::ir::ToolCallPart c;
  c.id = std::move(id);
  c.name = std::move(name);
  c.arguments = std::move(args);
  return c;
}

inline constexpr const char* kWeatherSchema =
    R"({"type":"object","properties":{"city":{"type":"string"},"unit":{"type":"string","enum":["c","f"]}},
        "required":["city"]})";

inline toolwire::tools::ToolSpec weather_spec(std::string name = "get_weather") {
  toolwire::tools::ToolSpec s;
  s.name = std::move(name);
  s.description = "Weather for a city";
  s.input_schema = kWeatherSchema;
  s.handler =
      toolwire::tools::SyncHandler([](const nlohmann::json& a, toolwire::tools::ToolContext& ctx) {
        return toolwire::tools::ToolOutput::text("sunny in " + a["city"].get<std::string>() + " (" +
                                                 ctx.call_id + ")");
      });
  return s;
}

}  // namespace tools_test
