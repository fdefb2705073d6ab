// Tool-name rules and the '.' <-> "__" wire mapping (see names.h).
#include "toolwire/tools/names.h"

#include <string>

namespace toolwire::tools {
namespace {
bool is_wire_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-';
}
}  // namespace

bool is_wire_name(std::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  for (char c : name)
    if (!is_wire_char(c)) return false;
  return true;
}

Status check_tool_name(std::string_view name) {
  auto bad = [&](std::string why) {
    return make_error(ErrorCode::invalid_argument,
                      "invalid tool name '" + std::string(name) + "': " + why);
  };
  if (name.empty()) return bad("empty");
  if (name.size() > 64) return bad("longer than 64 characters");
  bool dotted = false;
  for (size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    if (c == '.') {
      dotted = true;
      if (i == 0 || i + 1 == name.size()) return bad("starts or ends with '.'");
      if (name[i + 1] == '.') return bad("contains '..'");
    } else if (!is_wire_char(c)) {
      return bad("only letters, digits, '_', '-' and '.' are allowed (^[a-zA-Z0-9_.-]{1,64}$)");
    }
  }
  if (dotted) {
    if (name.find("__") != std::string_view::npos)
      return bad("a dotted name must not contain \"__\" (its wire form maps '.' to \"__\")");
    for (size_t i = 0; i + 1 < name.size(); ++i)
      if ((name[i] == '.' && name[i + 1] == '_') || (name[i] == '_' && name[i + 1] == '.'))
        return bad("'_' next to '.' would make the wire name ambiguous");
    if (to_wire_name(name).size() > 64)
      return bad("wire name (dots as \"__\") longer than 64 characters");
  }
  return {};
}

std::string to_wire_name(std::string_view name) {
  std::string out;
  out.reserve(name.size() + 8);
  for (char c : name) {
    if (c == '.')
      out += "__";
    else
      out.push_back(c);
  }
  return out;
}

std::string from_wire_name(std::string_view wire) {
  std::string out;
  out.reserve(wire.size());
  for (size_t i = 0; i < wire.size(); ++i) {
    if (wire[i] == '_' && i + 1 < wire.size() && wire[i + 1] == '_') {
      out.push_back('.');
      ++i;
    } else {
      out.push_back(wire[i]);
    }
  }
  return out;
}

}  // namespace toolwire::tools
