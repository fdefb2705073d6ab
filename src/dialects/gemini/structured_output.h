// structured_output.h — Gemini's generationConfig.responseMimeType
// "application/json" with responseSchema (its OpenAPI subset) or
// responseJsonSchema (JSON Schema) ↔ the IR's response format. A schema
// inside the subset is written as responseSchema, any other as
// responseJsonSchema. Another MIME type (text/x.enum) stays an extra.
#pragma once

#include "dialects/common/borrowed_ir.h"
#include "toolwire/core/json_writer.h"
#include "toolwire/core/warnings.h"

namespace toolwire::dialects::gemini {

// The three members as the decoder's loop over generationConfig found them
// (`raw` keys as written, snake_case or camelCase).
struct FormatMembers {
  std::string_view mime_key, schema_key, json_schema_key;
  json::element mime, schema, json_schema;
  bool has_mime = false, has_schema = false, has_json_schema = false;
  // True (and the member recorded) for one of the three keys (after camel_key).
  bool take(std::string_view key, std::string_view raw_key, json::element value);
};

template <class S>
Status decode_response_format(const FormatMembers& m, const json::Path& path,
                              ir::BasicRequest<S>& req);
// True when write_response_format writes anything.
template <class S>
bool has_response_format(const ir::BasicRequest<S>& req);
template <class S>
Status write_response_format(JsonWriter& w, const ir::BasicRequest<S>& req, bool raw_verified,
                             Warnings& warnings);

}  // namespace toolwire::dialects::gemini
