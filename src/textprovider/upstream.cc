// make_upstream: the scripted model, or an HTTP profile with its key rule
// and tool_format applied.
#include "toolwire/textprovider/upstream.h"

#include <fstream>
#include <sstream>

#include "toolwire/dialects/dialect.h"
#include "toolwire/provider/scripted.h"
#include "toolwire/textprovider/text_provider.h"

namespace toolwire::textprovider {
namespace {

Result<std::unique_ptr<provider::Provider>> make_scripted(const UpstreamSpec& s) {
  if (!s.tool_format.empty())
    return make_error(ErrorCode::invalid_argument, "a scripted model takes no tool_format");
  std::string text(s.default_script);
  if (!s.script_file.empty()) {
    std::ifstream in(s.script_file, std::ios::binary);
    if (!in) return make_error(ErrorCode::not_found, "cannot open script '" + s.script_file + "'");
    std::ostringstream ss;
    ss << in.rdbuf();
    text = ss.str();
  } else if (text.empty()) {
    return make_error(ErrorCode::invalid_argument, "a scripted model needs a script file");
  }
  auto script = provider::parse_script(text);
  if (!script) {
    Error e = std::move(script).error();
    if (!s.script_file.empty()) e.message = "script '" + s.script_file + "': " + e.message;
    return e;
  }
  return std::unique_ptr<provider::Provider>(
      std::make_unique<provider::ScriptedProvider>(std::move(*script)));
}

// tool_format needs a text endpoint: an OpenAI-style chat one (sent no tools)
// or a raw completion one.
bool takes_tool_format(const provider::Profile& p) {
  const dialects::Dialect* d = dialects::find_dialect(p.dialect);
  return (d && d->name == "openai_chat") || p.dialect == kCompletionsDialect;
}

}  // namespace

std::optional<UpstreamProblem> check_upstream(std::string_view profile, std::string_view base_url,
                                              std::string_view tool_format) {
  if (profile == kScriptedProfile) {
    if (!tool_format.empty())
      return UpstreamProblem{"tool_format",
                             "only for OpenAI-style chat or completion upstreams (openai, "
                             "openai_compatible, openai_completions, or a profile of theirs)"};
    return std::nullopt;
  }
  auto p = provider::builtin_profile(profile);
  if (!p) return std::nullopt;
  if (!base_url.empty()) {
    std::string b(base_url);
    while (!b.empty() && b.back() == '/') b.pop_back();
    const std::string& suffix = p->base_url_suffix;
    if (!suffix.empty() && !b.ends_with(suffix) && b.find(suffix + "/") == std::string::npos)
      return UpstreamProblem{"base_url", "an OpenAI-style base URL ends in " + suffix +
                                             ", as the OpenAI SDK takes it (e.g. " + b + suffix +
                                             ")"};
  } else if (p->base_url.empty()) {
    return UpstreamProblem{"base_url", "required for " + std::string(profile)};
  }
  if (!tool_format.empty() && !takes_tool_format(*p))
    return UpstreamProblem{"tool_format",
                           "only for OpenAI-style chat or completion upstreams (openai, "
                           "openai_compatible, openai_completions, or a profile of theirs)"};
  if (tool_format.empty() && p->dialect == kCompletionsDialect)
    return UpstreamProblem{"tool_format",
                           "required for " + std::string(profile) +
                               " (the family whose chat template writes the prompt and whose "
                               "calls are parsed: hermes, llama3_json, ...)"};
  return std::nullopt;
}

std::string upstream_profile_names() {
  std::string out;
  for (const std::string& n : provider::builtin_profile_names()) out += n + ", ";
  return out + std::string(kScriptedProfile);
}

Result<std::unique_ptr<provider::Provider>> make_upstream(const UpstreamSpec& spec,
                                                          transport::HttpTransport* client) {
  const provider::ProviderConfig& cfg = spec.provider;
  if (cfg.profile == kScriptedProfile) return make_scripted(spec);
  if (!client) return make_error(ErrorCode::internal, "an HTTP provider needs a transport");
  auto profile = provider::resolve_profile(cfg);
  if (!profile) return std::move(profile).error();
  if ((!cfg.base_url.empty() && cfg.api_key_env.empty()) || spec.key_optional)
    profile->api_key_required = false;
  if (!spec.tool_format.empty() && !takes_tool_format(*profile))
    return make_error(ErrorCode::invalid_argument,
                      "tool_format is only for OpenAI-style chat or completion upstreams "
                      "(profile '" +
                          profile->name + "' speaks " + profile->dialect + ")");
  return make_text_provider(std::move(*profile), cfg, *client, spec.tool_format);
}

}  // namespace toolwire::textprovider
