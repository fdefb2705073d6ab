#include "dialects/common/tool_schema.h"

#include <chrono>
#include <cstdint>
#include <cstring>
#include <string>
#include <unordered_set>

namespace toolwire::dialects::json {

namespace {

// Schema texts this thread has already found good. An application sends the
// same tool definitions with every request, and an encoder that cannot take
// its IR as a decoder's (the gateway edits the request between the two)
// parsed each schema again each time: a third of a translated request's
// JSON parsing. Bounded: past the bounds the set starts again.
class KnownGoodSchemas {
 public:
  bool contains(std::string_view text) const { return set_.find(text) != set_.end(); }
  void add(std::string_view text) {
    if (text.size() > kMaxText) return;
    if (set_.size() >= kMaxEntries || bytes_ + text.size() > kMaxBytes) {
      set_.clear();
      bytes_ = 0;
    }
    bytes_ += text.size();
    set_.emplace(text);
  }

 private:
  static constexpr size_t kMaxEntries = 1024;
  static constexpr size_t kMaxText = 64 * 1024;
  static constexpr size_t kMaxBytes = 4 * 1024 * 1024;
  // Eight bytes a step (std::hash takes one: it was about 1.7 k instructions
  // per translated request of three tools). Seeded per process, since the
  // texts come from clients.
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const {
      static const uint64_t seed =
          reinterpret_cast<uintptr_t>(&seed) ^
          static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
      uint64_t h = seed ^ (s.size() * 0x9E3779B97F4A7C15ull);
      const char* p = s.data();
      size_t n = s.size();
      for (; n >= 8; p += 8, n -= 8) {
        uint64_t w;
        std::memcpy(&w, p, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
        h ^= h >> 32;
      }
      uint64_t w = 0;
      std::memcpy(&w, p, n);
      h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
      return static_cast<size_t>(h ^ (h >> 29));
    }
  };
  std::unordered_set<std::string, Hash, std::equal_to<>> set_;
  size_t bytes_ = 0;
};

}  // namespace

Status check_tool_schema(element schema, const Path& path) {
  if (!schema.is_object()) [[unlikely]]
    return wrong_type(schema, path, "object");
  auto type = schema.get_object().value_unsafe()["type"];
  if (type.error()) return Status::Ok();  // no "type": an object is implied
  element t = type.value_unsafe();
  if (t.is_string() && t.get_string().value_unsafe() == "object") [[likely]]
    return Status::Ok();
  std::string got = t.is_string() ? "\"" + std::string(t.get_string().value_unsafe()) + "\""
                                  : std::string(type_name(t.type()));
  return invalid(
      Path(path, "type"),
      "a tool's input schema must be of type \"object\" (the APIs refuse any other), got " + got);
}

Status check_tool_schema_text(std::string_view schema, const Path& path) {
  thread_local KnownGoodSchemas known;
  if (known.contains(schema)) return Status::Ok();
  thread_local simdjson::dom::parser parser;
  auto doc = parser.parse(schema.data(), schema.size(), /*realloc_if_needed=*/true);
  if (doc.error()) return invalid(path, "tool input schema is not a JSON object");
  TW_TRY(check_tool_schema(doc.value_unsafe(), path));
  known.add(schema);
  return Status::Ok();
}

}  // namespace toolwire::dialects::json
