// toolwire/schema/json_schema.h — the JSON Schema conversions some dialects
// need before they accept a tool's schema (nlohmann values; the tools library
// and the dialects' tool exporters both use them).
//
// - OpenAI strict: every property required, optional ones nullable,
//   additionalProperties:false, recursively; keywords strict mode rejects are
//   dropped (the registry still validates against the original schema).
// - Gemini: reduced to its OpenAPI subset: $ref inlined, type arrays ->
//   nullable, unsupported keywords removed (see docs/tools.md).
#pragma once

#include <nlohmann/json.hpp>

#include "toolwire/core/result.h"

namespace toolwire::schema {

Result<nlohmann::ordered_json> to_openai_strict_schema(const nlohmann::ordered_json& schema);
Result<nlohmann::ordered_json> to_gemini_schema(const nlohmann::ordered_json& schema);

// For arguments produced under a strict schema: removes `null` members whose
// property is optional in the original `schema` (recursively), in place.
void strip_strict_nulls(const nlohmann::json& schema, nlohmann::json& args);

}  // namespace toolwire::schema
