// toolwire/provider/profile.h — a provider profile is data: which wire
// dialect, where, how to authenticate, what the upstream can do.
//
// The built-in profiles live in profiles/*.json and are compiled into the
// library; more can be loaded from a file. vLLM, Ollama, Groq or OpenRouter
// are profiles of the `openai_chat` dialect, not code.
//
//   {
//     "name": "anthropic",
//     "dialect": "anthropic_messages",
//     "base_url": "https://api.anthropic.com",
//     "path": "/v1/messages",
//     "auth": {"header": "x-api-key", "prefix": ""},
//     "api_key_env": "ANTHROPIC_API_KEY",
//     "headers": {"anthropic-version": "2023-06-01"},
//     "default_model": "claude-sonnet-4-5",
//     "capabilities": {"thinking": true, "requires_max_tokens": true}
//   }
//
//   Result<Profile> p = provider::builtin_profile("openai");
//   Result<Profile> q = provider::load_profile_file("profiles/groq.json");
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "toolwire/core/result.h"
#include "toolwire/provider/capabilities.h"

namespace toolwire::provider {

struct Profile {
  std::string name;
  std::string dialect;   // a dialect of the list (codec/dialect.h): "openai_chat", "anthropic"
  std::string base_url;  // without the trailing path; may be empty (then required from config)
  // A base URL given in its place ends in this ("/v1": its SDKs take the
  // version in the base URL); empty: any.
  std::string base_url_suffix;
  // Appended to base_url; `{model}` stands for the model id (percent-encoded).
  // Empty: the dialect's own path template.
  std::string path;
  std::string auth_header;  // "authorization", "x-api-key"; empty: no key sent
  std::string auth_prefix;  // "Bearer "
  std::string api_key_env;  // default environment variable holding the key
  bool api_key_required = true;
  std::vector<std::pair<std::string, std::string>> headers;  // sent with every request
  std::string default_model;
  // Ask for a stream's usage the way the dialect needs it (openai_chat:
  // `stream_options.include_usage`); off for servers that reject it.
  bool stream_usage = true;
  Capabilities capabilities;
};

// Parses a profile document; errors name the JSON path.
Result<Profile> parse_profile(std::string_view json);
Result<Profile> load_profile_file(const std::string& path);

// One of the profiles compiled in from profiles/*.json, by name.
Result<Profile> builtin_profile(std::string_view name);
std::vector<std::string> builtin_profile_names();

}  // namespace toolwire::provider
