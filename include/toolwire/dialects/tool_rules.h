// toolwire/dialects/tool_rules.h — tool definitions a dialect's API is sure to refuse.
//
// Both built-in APIs take tool names of letters, digits, '_' and '-' only:
// OpenAI Chat Completions up to 64 characters, Anthropic Messages up to 128
// (^[a-zA-Z0-9_-]{1,128}$). A name outside its target's rule is refused with
// a clear invalid_argument error rather than mapped: the character rule is
// the same in both dialects, so such a name was already wrong for the
// client's own API, and a mapping would have to follow every call and
// result back through responses and later requests. Encoders refuse such a
// tool (naming its path); the gateway runs the same check in the caller's
// dialect before routing, so nothing goes upstream.
//
// (Schemas: both APIs refuse an input schema that is not an object of
// "type": "object"; the decoders check it where the JSON is already parsed,
// and encoders given a hand-built IR check it too.)
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "toolwire/core/result.h"
#include "toolwire/ir/request.h"

namespace toolwire::dialects {

// The longest tool name `dialect` accepts; 0 for a dialect without a known rule.
size_t max_tool_name_length(std::string_view dialect);

// True when `dialect`'s API accepts `name` (any name for an unknown dialect).
bool is_valid_tool_name(std::string_view dialect, std::string_view name);

// The rule itself, for a caller that knows its limit (the encoders, per tool).
inline bool is_valid_tool_name(std::string_view name, size_t max_length) {
  if (name.empty() || name.size() > max_length) return false;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

// The invalid_argument error for a name that is not valid, naming the rule.
Error invalid_tool_name(std::string_view dialect, std::string_view name, std::string path);

// Every tool name of `request` checked against `dialect`'s rule; the error's
// path is spelled as in that dialect ($.tools[2].function.name, $.tools[2].name).
Status check_tool_names(std::string_view dialect, const ir::Request& request);

}  // namespace toolwire::dialects
