// toolwire/ir/response_format.h — the shape the caller wants the answer in:
// free text, any JSON object (JSON mode), or JSON matching a schema
// (structured output). Every dialect spells it differently
// (docs/translation.md, "Structured output"); the IR holds what they share.
#pragma once

#include <optional>
#include <string_view>

#include "toolwire/ir/storage.h"

namespace toolwire::ir {

enum class ResponseFormatKind { text, json_object, json_schema };

template <class S>
struct BasicResponseFormat {
  using Kind = ResponseFormatKind;
  Kind kind = Kind::text;
  // json_schema only: the schema as raw JSON text (an object), its name and
  // description (empty if none) and the OpenAI `strict` flag (nullopt: unset).
  typename S::String name;
  typename S::String description;
  typename S::String schema;
  std::optional<bool> strict;
  bool operator==(const BasicResponseFormat&) const = default;
};

using ResponseFormat = BasicResponseFormat<Owning>;

// The tool a request codec adds for a target that cannot ask for JSON
// natively ("forced tool"): its arguments are the answer. Decoders turn a call
// of this tool back into text (forced_output.h), so no caller ever sees it;
// the name is reserved.
inline constexpr std::string_view kForcedOutputTool = "toolwire_json_output";

}  // namespace toolwire::ir
