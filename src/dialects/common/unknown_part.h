// unknown_part.h — a part of a kind the IR keeps raw (ir::UnknownPart): its
// own dialect gets it back as it came; any other drops it with a warning.
#pragma once

#include <string>
#include <string_view>

#include "dialects/common/style.h"
#include "toolwire/core/json_writer.h"
#include "toolwire/ir/request.h"

namespace toolwire::dialects {

// "'<type>' <where> from <source> has no <name> equivalent" (`where`:
// "content", "tool result content", ...; `name`: the target dialect).
template <class U>
void warn_unknown_part(const U& u, std::string_view name, std::string_view where,
                       const json::Path& path, Warnings& warnings) {
  warn(warnings, "dropped_unknown_part", path,
       "'" + std::string(u.type) + "' " + std::string(where) + " from " + std::string(u.dialect) +
           " has no " + std::string(name) + " equivalent");
}

// Writes `u` raw when it came from `dialect` (true), else warns (false).
template <class U>
bool write_unknown_part(const U& u, std::string_view dialect, std::string_view name,
                        const json::Path& path, JsonWriter& w, Warnings& warnings) {
  if (u.dialect == dialect) {
    w.raw(u.raw_json);
    return true;
  }
  warn_unknown_part(u, name, "content", path, warnings);
  return false;
}

}  // namespace toolwire::dialects
