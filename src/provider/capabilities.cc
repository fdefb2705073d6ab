// adapt_request: the one place a request meets a provider's capabilities.
#include "toolwire/provider/capabilities.h"

#include <string>
#include <variant>

namespace toolwire::provider {
namespace {

std::string part_path(size_t m, size_t p) {
  return "$.messages[" + std::to_string(m) + "].parts[" + std::to_string(p) + "]";
}

bool has_tool_parts(const ir::Request& r) {
  for (const auto& m : r.messages)
    for (const auto& p : m.parts)
      if (std::holds_alternative<ir::ToolCallPart>(p) ||
          std::holds_alternative<ir::ToolResultPart>(p))
        return true;
  return false;
}

Error refuse(ErrorCode code, std::string_view provider, std::string what, std::string path) {
  return make_error(code, "provider '" + std::string(provider) + "' " + what, std::move(path));
}

}  // namespace

Result<ir::Request> adapt_request(ir::Request r, const Capabilities& c, std::string_view name,
                                  Warnings& warnings) {
  if (!r.tools.empty() && !c.tools)
    return refuse(ErrorCode::unimplemented, name, "does not support tools", "$.tools");

  if (r.tool_choice) {
    using K = ir::ToolChoice::Kind;
    switch (r.tool_choice->kind) {
      case K::auto_:
        if (!c.tool_choice_auto) {  // auto is every upstream's default: leaving it out means the
                                    // same
          r.tool_choice.reset();
          warnings.push_back({"dropped_tool_choice", "$.tool_choice",
                              "tool_choice 'auto' left out (the default)"});
        }
        break;
      case K::none:
        if (!c.tool_choice_none) {
          if (has_tool_parts(r))
            return refuse(ErrorCode::unimplemented, name, "cannot express tool_choice 'none'",
                          "$.tool_choice");
          // Without tools the model cannot call one: the same meaning.
          r.tool_choice.reset();
          r.tools.clear();
          warnings.push_back(
              {"dropped_tools", "$.tools", "tool_choice 'none': tools left out instead"});
        }
        break;
      case K::required:
        if (!c.tool_choice_required)
          return refuse(ErrorCode::unimplemented, name,
                        "cannot force a tool call (tool_choice 'required')", "$.tool_choice");
        break;
      case K::tool:
        if (!c.tool_choice_named)
          return refuse(ErrorCode::unimplemented, name,
                        "cannot force the tool '" + r.tool_choice->name + "'", "$.tool_choice");
        break;
    }
  }

  if (r.parallel_tool_calls && !c.parallel_tool_calls_flag) {
    r.parallel_tool_calls.reset();
    warnings.push_back({"dropped_parallel_tool_calls", "$.parallel_tool_calls",
                        "the upstream does not take a parallel_tool_calls switch"});
  }

  bool dropped_thinking = false;
  for (size_t m = 0; m < r.messages.size(); ++m) {
    auto& parts = r.messages[m].parts;
    for (size_t p = 0; p < parts.size(); ++p) {
      if (!c.images) {
        if (std::holds_alternative<ir::ImagePart>(parts[p]))
          return refuse(ErrorCode::invalid_argument, name, "does not accept images",
                        part_path(m, p));
        if (auto* tr = std::get_if<ir::ToolResultPart>(&parts[p]))
          for (size_t k = 0; k < tr->content.size(); ++k)
            if (std::holds_alternative<ir::ImagePart>(tr->content[k]))
              return refuse(ErrorCode::invalid_argument, name, "does not accept images",
                            part_path(m, p) + ".content[" + std::to_string(k) + "]");
      }
    }
    if (!c.thinking) {
      size_t before = parts.size();
      std::erase_if(parts,
                    [](const ir::Part& p) { return std::holds_alternative<ir::ThinkingPart>(p); });
      dropped_thinking |= parts.size() != before;
    }
  }
  if (dropped_thinking)
    warnings.push_back({"dropped_thinking", "$.messages",
                        "reasoning blocks left out: the model does not take them"});

  if (c.requires_max_tokens && !r.max_tokens) {
    r.max_tokens = c.default_max_tokens;
    // The same word `convert` gives when its encoder fills the field in.
    warnings.push_back(
        {"defaulted_max_tokens", "$.max_tokens",
         "the upstream requires max_tokens; defaulted to " + std::to_string(c.default_max_tokens)});
  }
  return r;
}

}  // namespace toolwire::provider
