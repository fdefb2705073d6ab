// finish_reason.h — a dialect's finish reasons as two tables instead of an
// if-chain and a switch: the raw values it reads (each with its kind) and the
// value it writes for each kind. What differs around them (tool calls
// overriding the kind, which raw values pass through) stays with the dialect.
#pragma once

#include <string_view>

#include "toolwire/ir/response.h"

namespace toolwire::dialects {

using ReasonKind = ir::FinishReason::Kind;

// One kind and the raw values read as it.
struct RawReasons {
  ReasonKind kind;
  const char* raw[10];  // unused slots: nullptr
};

// `raw` (kept as the raw value) with its kind from `table`; `other` when the
// table does not have it.
template <size_t N>
ir::FinishReason decode_reason(const RawReasons (&table)[N], std::string_view raw) {
  ir::FinishReason r;
  r.raw.assign(raw);
  r.kind = ReasonKind::other;
  for (const RawReasons& row : table)
    for (const char* name : row.raw)
      if (name && raw == name) {
        r.kind = row.kind;
        return r;
      }
  return r;
}

// decode_reason, but a turn that made tool calls ends for them, whatever the
// raw reason says.
template <size_t N>
ir::FinishReason decode_reason(const RawReasons (&table)[N], std::string_view raw, bool has_calls) {
  ir::FinishReason r = decode_reason(table, raw);
  if (has_calls) r.kind = ReasonKind::tool_calls;
  return r;
}

// The value written for each kind; empty: the dialect decides.
struct ReasonNames {
  std::string_view stop, length, tool_calls, content_filter, error, other;

  std::string_view of(ReasonKind kind) const {
    const std::string_view by_kind[] = {stop, length, tool_calls, content_filter, error, other};
    return by_kind[static_cast<size_t>(kind)];
  }
};

}  // namespace toolwire::dialects
