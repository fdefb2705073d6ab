// toolwire/textprovider/upstream.h — the one factory of upstream model
// providers: `toolwire chat`, `toolwire serve`'s flags and its YAML all build
// theirs here, so one set of rules holds everywhere.
//
//   textprovider::UpstreamSpec s;
//   s.provider.profile = "openai_compatible";
//   s.provider.base_url = "http://127.0.0.1:11434/v1";
//   s.tool_format = "hermes";
//   auto p = textprovider::make_upstream(s, &client);
//
// The rules:
//   - `scripted` is the scripted model (provider/scripted.h): the rules of
//     `script_file`, else `default_script`; it takes no tool_format.
//   - Any other profile is an HTTP provider (provider/factory.h). Its key
//     is required as the profile says, except that a base URL of one's own
//     with no key variable named needs none (a local server); a variable
//     that is named must be set when the profile requires a key.
//   - `tool_format` is for OpenAI-style chat profiles and raw completion
//     profiles (which need one), never for other dialects.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "toolwire/core/result.h"
#include "toolwire/provider/factory.h"
#include "toolwire/provider/provider.h"

namespace toolwire::textprovider {

// The profile name of the scripted model.
inline constexpr std::string_view kScriptedProfile = "scripted";

struct UpstreamSpec {
  // profile ("scripted" or a profile name), profile_file, base_url, model,
  // api_key_env, name, timeouts and retries.
  provider::ProviderConfig provider;
  std::string tool_format;  // a text format family; "" = native tool calling
  std::string script_file;  // scripted: a script file
  // scripted without a file: this script; empty: a script file is required.
  std::string_view default_script;
};

// `client` carries the HTTP providers' calls and must outlive them; the
// scripted model needs none (null).
Result<std::unique_ptr<provider::Provider>> make_upstream(const UpstreamSpec& spec,
                                                          transport::HttpTransport* client);

}  // namespace toolwire::textprovider
