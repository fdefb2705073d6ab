// Function names, synthesized call ids and protobuf JSON key spellings.
#include "dialects/gemini/wire.h"

namespace toolwire::dialects::gemini {
namespace {

bool name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.' || c == ':' || c == '-';
}

// ^_*[0-9-]: the names the map moves (their first non-'_' byte may not lead).
bool moved(std::string_view name) {
  size_t i = 0;
  while (i < name.size() && name[i] == '_') ++i;
  return i < name.size() && ((name[i] >= '0' && name[i] <= '9') || name[i] == '-');
}

}  // namespace

std::string_view camel_key(std::string_view key, std::string& scratch) {
  bool underscore = false;  // a loop, not find(): keys are short, memchr's call is not
  for (char c : key) underscore |= c == '_';
  if (!underscore) [[likely]]
    return key;
  scratch.clear();
  bool upper = false;
  for (char c : key) {
    if (c == '_') {
      upper = !scratch.empty();
      continue;
    }
    scratch.push_back(upper && c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c);
    upper = false;
  }
  return scratch;
}

bool is_valid_name(std::string_view name) {
  if (name.empty() || name.size() > kMaxToolNameLength) return false;
  const char first = name[0];
  if (!((first >= 'a' && first <= 'z') || (first >= 'A' && first <= 'Z') || first == '_'))
    return false;
  for (char c : name)
    if (!name_char(c)) return false;
  return true;
}

std::string_view to_gemini_name(std::string_view name, std::string& scratch) {
  if (!moved(name)) [[likely]]
    return name;
  scratch.assign("_");
  scratch.append(name);
  return scratch;
}

std::string_view from_gemini_name(std::string_view name) {
  if (name.size() > 1 && name[0] == '_' && moved(name.substr(1))) return name.substr(1);
  return name;
}

Error invalid_name(std::string_view name, const json::Path& path) {
  std::string shown(name.substr(0, 80));
  if (name.size() > 80) shown += "...";
  return make_error(ErrorCode::invalid_argument,
                    "invalid tool name '" + shown +
                        "': gemini accepts only names of 1 to 64 letters, digits, '_', '.', ':' "
                        "or '-' that start with a letter or '_' "
                        "(^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$; a leading digit or '-' gets a '_')",
                    path.str());
}

Result<std::string_view> gemini_name_or_error(std::string_view name, std::string& scratch,
                                              const json::Path& path) {
  const std::string_view mapped = to_gemini_name(name, scratch);
  if (is_valid_name(mapped)) [[likely]]
    return mapped;
  return invalid_name(name, path);
}

std::string synthesize_call_id(std::string_view salt, size_t ordinal, std::string_view name,
                               std::string_view args) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a 64
  auto mix = [&h](unsigned char c) {
    h ^= c;
    h *= 1099511628211ull;
  };
  for (char c : salt) mix(static_cast<unsigned char>(c));
  mix(0);
  for (size_t n = ordinal; n; n >>= 8) mix(static_cast<unsigned char>(n & 0xff));
  mix(0);
  for (char c : name) mix(static_cast<unsigned char>(c));
  mix(0);
  bool in_string = false, escaped = false;
  for (char c : args) {
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      continue;
    }
    mix(static_cast<unsigned char>(c));
  }
  static constexpr char hex[] = "0123456789abcdef";
  std::string out = "call_";
  for (int shift = 60; shift >= 0; shift -= 4) out.push_back(hex[(h >> shift) & 15]);
  return out;
}

}  // namespace toolwire::dialects::gemini
