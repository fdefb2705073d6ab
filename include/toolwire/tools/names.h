// toolwire/tools/names.h — tool-name rules and the dotted-name mapping.
//
// Every provider accepts tool names matching ^[a-zA-Z0-9_-]{1,64}$; some
// reject dots. toolwire lets a tool be registered with dots (namespaces such
// as "agent.spawn") and sends it to models under its wire name, where each
// '.' becomes "__":
//
//   to_wire_name("agent.spawn")   == "agent__spawn"
//   from_wire_name("agent__spawn") == "agent.spawn"
//
// The mapping is reversible because an internal name may contain "__" only
// when it has no dots, and the registry refuses two tools whose wire names
// collide ("a.b" and "a__b"); lookups go through the registry, which knows
// both spellings. Rules for an internal name: 1-64 characters of
// [a-zA-Z0-9_.-], no leading/trailing/double dot, wire form at most 64 chars.
#pragma once

#include <string>
#include <string_view>

#include "toolwire/core/result.h"

namespace toolwire::tools {

// True when `name` is accepted by every provider as is.
bool is_wire_name(std::string_view name);

// Checks an internal (registration) name; the error says which rule failed.
Status check_tool_name(std::string_view name);

// '.' -> "__". Only meaningful for names that pass check_tool_name.
std::string to_wire_name(std::string_view name);
// "__" -> '.'. Use Registry::find for lookups: a registered name may contain
// "__" legitimately (then it has no dots and is its own wire name).
std::string from_wire_name(std::string_view wire);

}  // namespace toolwire::tools
