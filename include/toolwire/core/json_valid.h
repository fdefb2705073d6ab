// toolwire/core/json_valid.h — is a piece of text one well-formed JSON value?
//
// Opaque JSON (tool arguments, schemas, metadata) travels through the IR as
// text; the stream accumulator and the encoders check it with this before
// trusting it. simdjson's validating parse, on a thread-local parser.
#pragma once

#include <string_view>

namespace toolwire {

// True when `text` is exactly one well-formed JSON value (surrounding
// whitespace allowed).
bool is_valid_json(std::string_view text);

}  // namespace toolwire
