// Helpers for the built-in tools; see common.h.
#include "tools/builtin/common.h"

#include <algorithm>
#include <exception>

namespace toolwire::tools::builtin {

SyncHandler wrap(Ctx bc, Impl fn) {
  return [bc = std::move(bc), fn](const nlohmann::json& args, ToolContext& ctx) -> ToolOutput {
    Result<ToolOutput> r = fn(args, *bc, ctx);
    if (!r) return ToolOutput::error(r.error().to_string());
    return std::move(*r);
  };
}

ToolSpec spec(std::string name, std::string description, std::string input_schema, Ctx bc,
              Impl fn) {
  ToolSpec s;
  s.name = std::move(name);
  s.description = std::move(description);
  s.input_schema = std::move(input_schema);
  s.handler = wrap(std::move(bc), fn);
  return s;
}

std::string bounded_lines(std::span<const std::string> lines, size_t max_bytes, bool truncated,
                          std::string_view what, std::string_view unit) {
  std::string out;
  size_t shown = 0;
  for (const std::string& line : lines) {
    if (out.size() + line.size() + 1 > max_bytes) break;
    out += line;
    out += '\n';
    ++shown;
  }
  if (shown < lines.size() || truncated)
    out += "[" + std::string(what) + " truncated after " + std::to_string(shown) + " " +
           std::string(unit) + "]\n";
  return out;
}

Result<std::string> arg_string(const nlohmann::json& a, const char* key, const char* def) {
  if (!a.is_object())
    return make_error(ErrorCode::invalid_argument, "arguments must be an object", "$");
  auto it = a.find(key);
  if (it == a.end() || it->is_null()) {
    if (def) return std::string(def);
    return make_error(ErrorCode::invalid_argument, "required property missing",
                      std::string("$.") + key);
  }
  if (!it->is_string())
    return make_error(ErrorCode::invalid_argument, "must be a string", std::string("$.") + key);
  return it->get<std::string>();
}

Result<std::int64_t> arg_int(const nlohmann::json& a, const char* key, std::int64_t def,
                             std::int64_t min) {
  auto it = a.find(key);
  if (it == a.end() || it->is_null()) return def;
  if (!it->is_number_integer())
    return make_error(ErrorCode::invalid_argument, "must be an integer", std::string("$.") + key);
  std::int64_t v = it->get<std::int64_t>();
  if (v < min)
    return make_error(ErrorCode::invalid_argument, "must be >= " + std::to_string(min),
                      std::string("$.") + key);
  return v;
}

Result<bool> arg_bool(const nlohmann::json& a, const char* key, bool def) {
  auto it = a.find(key);
  if (it == a.end() || it->is_null()) return def;
  if (!it->is_boolean())
    return make_error(ErrorCode::invalid_argument, "must be a boolean", std::string("$.") + key);
  return it->get<bool>();
}

bool valid_utf8(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  size_t i = 0, n = s.size();
  while (i < n) {
    unsigned char c = p[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t len = (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    if (len == 0 || i + len > n) return false;
    for (size_t k = 1; k < len; ++k)
      if ((p[i + k] & 0xC0) != 0x80) return false;
    unsigned cp = len == 2 ? (c & 0x1Fu) : len == 3 ? (c & 0x0Fu) : (c & 0x07u);
    for (size_t k = 1; k < len; ++k) cp = (cp << 6) | (p[i + k] & 0x3Fu);
    if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) ||
        (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) || (cp >= 0xD800 && cp <= 0xDFFF))
      return false;
    i += len;
  }
  return true;
}

bool looks_binary(std::string_view s) {
  if (s.substr(0, 8192).find('\0') != std::string_view::npos) return true;
  return !valid_utf8(s);
}

std::string_view utf8_prefix(std::string_view s, size_t max) {
  if (s.size() <= max) return s;
  size_t cut = max;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return s.substr(0, cut);
}

std::chrono::milliseconds budget(const ToolContext& ctx, std::chrono::milliseconds cap) {
  if (ctx.deadline == Clock::time_point::max()) return cap;
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(ctx.deadline - Clock::now());
  return std::max(std::chrono::milliseconds(1), std::min(cap, left));
}

}  // namespace toolwire::tools::builtin
