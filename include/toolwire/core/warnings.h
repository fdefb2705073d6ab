// toolwire/core/warnings.h — what a translation had to drop or change.
//
// Codecs never silently lose data: when the target dialect cannot express
// something (an unknown field, an image in an OpenAI tool message, a
// mid-conversation system message for Anthropic), they add a Warning and go on.
// The gateway returns them in a response header; `toolwire convert` prints them
// on stderr.
#pragma once

#include <string>
#include <vector>

namespace toolwire {

struct Warning {
  std::string code;     // stable machine-readable id, e.g. "dropped_unknown_field"
  std::string path;     // JSON path in the source document, if known
  std::string message;  // human explanation
};

using Warnings = std::vector<Warning>;

}  // namespace toolwire
