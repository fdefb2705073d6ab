// tool_schema.h — the input-schema rule both APIs hold a tool to.
//
// Private to the codecs. A tool's input schema must be a JSON object whose
// "type", when given, is "object": OpenAI and Anthropic refuse anything else
// (`{"type":"string"}` included), so a decoder refuses it at once, naming
// the path, instead of letting it travel to an upstream round trip. The
// decoders check the parsed element (one lookup among the schema's top-level
// keys); an encoder given a hand-built IR checks the text (each thread
// remembers the texts it found good: the same tools come with every request).
#pragma once

#include <string_view>

#include "dialects/common/json_in.h"

namespace toolwire::dialects::json {

Status check_tool_schema(element schema, const Path& path);
// The same for schema text (a thread-local parser; not the request's).
Status check_tool_schema_text(std::string_view schema, const Path& path);

}  // namespace toolwire::dialects::json
