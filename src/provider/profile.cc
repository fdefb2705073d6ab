// Provider profiles: JSON documents (profiles/*.json) → Profile.
#include "toolwire/provider/profile.h"

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "toolwire/core/json_depth.h"
#include "toolwire/dialects/dialect.h"

namespace toolwire::provider {
namespace {

using json = nlohmann::json;

struct BuiltinProfile {
  const char* name;
  const char* json;
};
const BuiltinProfile kBuiltin[] = {
#include "builtin_profiles.inc"
};

Status get_string(const json& j, const char* key, const std::string& path, std::string& out) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return Status::Ok();
  if (!it->is_string())
    return make_error(ErrorCode::invalid_argument, "must be a string", path + "." + key);
  out = it->get<std::string>();
  return Status::Ok();
}

Status get_bool(const json& j, const char* key, const std::string& path, bool& out) {
  auto it = j.find(key);
  if (it == j.end()) return Status::Ok();
  if (!it->is_boolean())
    return make_error(ErrorCode::invalid_argument, "must be true or false", path + "." + key);
  out = it->get<bool>();
  return Status::Ok();
}

Status parse_capabilities(const json& j, Capabilities& c) {
  const std::string p = "$.capabilities";
  if (!j.is_object()) return make_error(ErrorCode::invalid_argument, "must be an object", p);
  TW_TRY(get_bool(j, "streaming", p, c.streaming));
  TW_TRY(get_bool(j, "tools", p, c.tools));
  TW_TRY(get_bool(j, "parallel_tool_calls", p, c.parallel_tool_calls));
  TW_TRY(get_bool(j, "parallel_tool_calls_flag", p, c.parallel_tool_calls_flag));
  TW_TRY(get_bool(j, "images", p, c.images));
  TW_TRY(get_bool(j, "thinking", p, c.thinking));
  TW_TRY(get_bool(j, "requires_max_tokens", p, c.requires_max_tokens));
  if (auto it = j.find("default_max_tokens"); it != j.end()) {
    if (!it->is_number_integer() || it->get<int64_t>() <= 0)
      return make_error(ErrorCode::invalid_argument, "must be a positive integer",
                        p + ".default_max_tokens");
    c.default_max_tokens = it->get<int64_t>();
  }
  if (auto it = j.find("tool_choice"); it != j.end()) {
    if (!it->is_array())
      return make_error(ErrorCode::invalid_argument, "must be an array", p + ".tool_choice");
    c.tool_choice_auto = c.tool_choice_none = c.tool_choice_required = c.tool_choice_named = false;
    for (size_t i = 0; i < it->size(); ++i) {
      const json& v = (*it)[i];
      std::string s = v.is_string() ? v.get<std::string>() : "";
      if (s == "auto")
        c.tool_choice_auto = true;
      else if (s == "none")
        c.tool_choice_none = true;
      else if (s == "required")
        c.tool_choice_required = true;
      else if (s == "named")
        c.tool_choice_named = true;
      else
        return make_error(ErrorCode::invalid_argument, "expected auto, none, required or named",
                          p + ".tool_choice[" + std::to_string(i) + "]");
    }
  }
  return Status::Ok();
}

}  // namespace

Result<Profile> parse_profile(std::string_view text) {
  TW_ASSIGN(json j, parse_json_object<json>(text, "profile"));
  Profile p;
  TW_TRY(get_string(j, "name", "$", p.name));
  TW_TRY(get_string(j, "dialect", "$", p.dialect));
  TW_TRY(get_string(j, "base_url", "$", p.base_url));
  TW_TRY(get_string(j, "base_url_suffix", "$", p.base_url_suffix));
  TW_TRY(get_string(j, "path", "$", p.path));
  TW_TRY(get_string(j, "api_key_env", "$", p.api_key_env));
  TW_TRY(get_string(j, "default_model", "$", p.default_model));
  TW_TRY(get_bool(j, "api_key_required", "$", p.api_key_required));
  TW_TRY(get_bool(j, "stream_usage", "$", p.stream_usage));
  if (p.name.empty())
    return make_error(ErrorCode::invalid_argument, "a profile needs a name", "$.name");
  if (p.dialect.empty())
    return make_error(ErrorCode::invalid_argument, "a profile needs a dialect", "$.dialect");
  if (auto it = j.find("auth"); it != j.end()) {
    if (!it->is_object())
      return make_error(ErrorCode::invalid_argument, "must be an object", "$.auth");
    TW_TRY(get_string(*it, "header", "$.auth", p.auth_header));
    TW_TRY(get_string(*it, "prefix", "$.auth", p.auth_prefix));
  }
  if (auto it = j.find("headers"); it != j.end()) {
    if (!it->is_object())
      return make_error(ErrorCode::invalid_argument, "must be an object", "$.headers");
    for (auto h = it->begin(); h != it->end(); ++h) {
      if (!h.value().is_string())
        return make_error(ErrorCode::invalid_argument, "must be a string", "$.headers." + h.key());
      p.headers.emplace_back(h.key(), h.value().get<std::string>());
    }
  }
  if (auto it = j.find("capabilities"); it != j.end())
    TW_TRY(parse_capabilities(*it, p.capabilities));
  if (p.auth_header.empty()) p.api_key_required = false;
  return p;
}

Result<Profile> load_profile_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error(ErrorCode::not_found, "cannot open profile file '" + path + "'");
  std::stringstream ss;
  ss << in.rdbuf();
  auto p = parse_profile(ss.str());
  if (!p) {
    Error e = std::move(p).error();
    e.message = path + ": " + e.message;
    return e;
  }
  return p;
}

Result<Profile> builtin_profile(std::string_view name) {
  for (const auto& b : kBuiltin)
    if (name == b.name) return parse_profile(b.json);
  // A dialect's name or alias names its official profile ("responses" →
  // openai_responses.json, "bedrock_converse" → bedrock.json).
  if (const dialects::Dialect* d = dialects::find_dialect(name))
    for (std::string_view n : {d->name, d->alias})
      for (const auto& b : kBuiltin)
        if (!n.empty() && n == b.name) return parse_profile(b.json);
  std::string known;
  for (const auto& b : kBuiltin) known += (known.empty() ? "" : ", ") + std::string(b.name);
  return make_error(ErrorCode::not_found,
                    "unknown provider profile '" + std::string(name) + "' (known: " + known + ")");
}

std::vector<std::string> builtin_profile_names() {
  std::vector<std::string> out;
  for (const auto& b : kBuiltin) out.emplace_back(b.name);
  return out;
}

}  // namespace toolwire::provider
