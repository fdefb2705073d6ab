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

}  // namespace

Result<std::unique_ptr<provider::Provider>> make_upstream(const UpstreamSpec& spec,
                                                          transport::HttpTransport* client) {
  const provider::ProviderConfig& cfg = spec.provider;
  if (cfg.profile == kScriptedProfile) return make_scripted(spec);
  if (!client) return make_error(ErrorCode::internal, "an HTTP provider needs a transport");
  auto profile = provider::resolve_profile(cfg);
  if (!profile) return std::move(profile).error();
  if (!cfg.base_url.empty() && cfg.api_key_env.empty()) profile->api_key_required = false;
  const dialects::Dialect* d = dialects::find_dialect(profile->dialect);
  bool chat = d && d->name == "openai_chat";
  if (!spec.tool_format.empty() && !chat && profile->dialect != kCompletionsDialect)
    return make_error(ErrorCode::invalid_argument,
                      "tool_format is only for OpenAI-style chat or completion upstreams "
                      "(profile '" +
                          profile->name + "' speaks " + profile->dialect + ")");
  return make_text_provider(std::move(*profile), cfg, *client, spec.tool_format);
}

}  // namespace toolwire::textprovider
