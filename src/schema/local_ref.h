// Resolving local "#/..." JSON-pointer $refs against a root schema, shared by
// the dialect converters.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace toolwire::schema::export_detail {

// The subschema a local $ref points at, or nullptr (non-local, bad pointer).
template <class J>
const J* resolve_local_ref(const J& root, const std::string& ref) {
  if (ref == "#") return &root;
  if (ref.rfind("#/", 0) != 0) return nullptr;
  try {
    typename J::json_pointer ptr(ref.substr(1));
    const J* node = &root.at(ptr);
    return node;
  } catch (const std::exception&) {
    return nullptr;
  }
}

// A JSON path for messages: "$.properties.city".
inline std::string child_path(const std::string& path, const std::string& key) {
  return path + "." + key;
}
inline std::string index_path(const std::string& path, size_t i) {
  return path + "[" + std::to_string(i) + "]";
}

}  // namespace toolwire::schema::export_detail
