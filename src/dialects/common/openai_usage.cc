#include "dialects/common/openai_usage.h"

#include "dialects/common/style.h"

namespace toolwire::dialects {

Result<ir::Usage> decode_openai_usage(json::element e, const json::Path& path,
                                      const OpenAiUsageKeys& keys) {
  TW_ASSIGN(json::object obj, json::as_object(e, path));
  ir::Usage u;
  for (auto [key, value] : obj) {
    if (value.is_null()) continue;
    const json::Path p(path, key);
    if (key == keys.input || key == keys.output) {
      TW_ASSIGN(int64_t n, json::as_int64(value, p));
      (key == keys.input ? u.input_tokens : u.output_tokens) = n;
    } else if (key == keys.input_details) {
      TW_ASSIGN(json::object details, json::as_object(value, p));
      json::element cached;
      if (json::get(details, "cached_tokens", cached)) {
        TW_ASSIGN(int64_t n, json::as_int64(cached, json::Path(p, "cached_tokens")));
        u.cache_read_tokens = n;
      }
    }
  }
  return u;
}

void warn_dropped_cache_write(const ir::Usage& usage, std::string_view path, Warnings& warnings) {
  if (usage.cache_write_tokens && *usage.cache_write_tokens > 0)
    warn(warnings, "dropped_cache_write_tokens", std::string(path),
         "OpenAI usage has no cache write count");
}

}  // namespace toolwire::dialects
