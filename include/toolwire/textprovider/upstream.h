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
#include <optional>
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
  // No key needed even where the profile requires one (a gateway replaying
  // a recording calls no upstream).
  bool key_optional = false;
};

// What a configuration can check before anything is built, for an upstream
// of `profile` with this `base_url` and `tool_format` (either may be empty):
// the field at fault ("base_url", "tool_format") and why. nullopt: fine, or a
// profile this cannot know (its build then says what is wrong).
struct UpstreamProblem {
  std::string_view field;
  std::string message;
};
std::optional<UpstreamProblem> check_upstream(std::string_view profile, std::string_view base_url,
                                              std::string_view tool_format);

// "openai, anthropic, ..., scripted": the profile names a configuration may
// use without a profile file.
std::string upstream_profile_names();

// `client` carries the HTTP providers' calls and must outlive them; the
// scripted model needs none (null).
Result<std::unique_ptr<provider::Provider>> make_upstream(const UpstreamSpec& spec,
                                                          transport::HttpTransport* client);

}  // namespace toolwire::textprovider
