// toolwire/provider/factory.h — building a provider from a profile and the
// caller's configuration.
//
// An HTTP provider is codec (the profile's dialect) + transport (a shared
// HttpClient) + profile. The API key is read from the environment variable
// named in the configuration (or the profile's default) when the provider is
// made; it is only ever put in the auth header, never in a log or an error.
//
//   transport::HttpClient client;
//   provider::ProviderConfig cfg;
//   cfg.profile = "openai_compatible";
//   cfg.base_url = "http://127.0.0.1:11434/v1";   // Ollama
//   cfg.model = "qwen2.5:7b";
//   auto p = provider::make_provider(cfg, client);
//   if (!p) die(p.error().to_string());   // e.g. "environment variable OPENAI_API_KEY is not set"
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "toolwire/core/result.h"
#include "toolwire/provider/profile.h"
#include "toolwire/provider/provider.h"
#include "toolwire/transport/http_client.h"

namespace toolwire::provider {

struct ProviderConfig {
  std::string profile = "openai";  // built-in profile name, ignored when profile_file is set
  std::string name;          // how error messages name this upstream ("" = the profile's name)
  std::string profile_file;  // a profile JSON file
  std::string base_url;      // overrides the profile's
  std::string model;         // overrides the profile's default model
  std::string api_key_env;   // overrides the profile's variable name
  std::chrono::milliseconds deadline{std::chrono::minutes(10)};      // whole exchange
  std::chrono::milliseconds idle_timeout{std::chrono::seconds(60)};  // no byte for this long
  transport::RetryPolicy retry;
};

// The profile `cfg` selects, with its overrides applied.
Result<Profile> resolve_profile(const ProviderConfig& cfg);

// An HTTP provider for `profile`. `client` must outlive the provider.
Result<std::unique_ptr<Provider>> make_http_provider(Profile profile, const ProviderConfig& cfg,
                                                     transport::HttpTransport& client);

// resolve_profile() + make_http_provider().
Result<std::unique_ptr<Provider>> make_provider(const ProviderConfig& cfg,
                                                transport::HttpTransport& client);

}  // namespace toolwire::provider
