// toolwire/tools/schema.h — compiled JSON Schemas for argument validation.
//
// Wraps valijson (Debian's libvalijson-dev, draft-07 engine). Draft 2020-12
// schemas are first normalised to the draft-07 equivalents valijson knows
// (prefixItems/items -> items/additionalItems, $defs kept addressable by
// JSON pointer); the schema itself is checked against the draft-07
// meta-schema rules at compile time so a broken schema fails at registration.
//
//   Result<CompiledSchema> s = CompiledSchema::compile(R"({"type":"object",
//       "properties":{"city":{"type":"string"}},"required":["city"]})");
//   Status st = s->validate(nlohmann::json::parse(R"({})"));
//   // st.error().message == "/city: required property missing"
//
// `format` is an annotation (never asserted). Remote $refs are refused unless
// a resolver is given (only the conformance runner does that).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "toolwire/core/result.h"

namespace toolwire::tools {

struct SchemaOptions {
  // Resolves an absolute URI (without fragment) of a remote $ref to its
  // document; nullopt = unknown. Unset: remote refs are an error.
  std::function<std::optional<nlohmann::json>(const std::string& uri)> resolve_remote;
  // Check the schema against meta-schema rules before compiling.
  bool check_meta = true;
};

// One violation: JSON pointer into the instance and a message.
struct Violation {
  std::string pointer;  // "" for the root, "/city", "/items/0"
  std::string message;
};

class CompiledSchema {
 public:
  static Result<CompiledSchema> compile(std::string_view schema_json,
                                        const SchemaOptions& opts = {});
  static Result<CompiledSchema> compile(const nlohmann::json& schema,
                                        const SchemaOptions& opts = {});

  CompiledSchema(CompiledSchema&&) noexcept;
  CompiledSchema& operator=(CompiledSchema&&) noexcept;
  ~CompiledSchema();

  const nlohmann::json& source() const;
  // OK or invalid_argument whose message is one "/ptr: message" line per violation.
  Status validate(const nlohmann::json& instance) const;
  bool accepts(const nlohmann::json& instance) const;
  // Up to `max` violations (0 = all valijson reports).
  std::vector<Violation> violations(const nlohmann::json& instance, size_t max = 8) const;

 private:
  struct Impl;
  explicit CompiledSchema(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Draft 2020-12 -> draft-07 rewrite used before compiling (exposed for tests).
nlohmann::json normalize_to_draft7(const nlohmann::json& schema);

}  // namespace toolwire::tools
