#include "dialects/common/cache_usage.h"

#include <optional>

#include "dialects/common/style.h"

namespace toolwire::dialects {

Status decode_cache_excluded_usage(json::element usage, const json::Path& path,
                                   const CacheUsageKeys& keys, ir::Usage& out) {
  TW_ASSIGN(json::object obj, json::as_object(usage, path));
  std::optional<int64_t> input;
  for (auto field : obj) {
    std::optional<int64_t>* target = nullptr;
    if (field.key == keys.input)
      target = &input;
    else if (field.key == keys.output)
      target = &out.output_tokens;
    else if (field.key == keys.cache_read)
      target = &out.cache_read_tokens;
    else if (field.key == keys.cache_write)
      target = &out.cache_write_tokens;
    const json::Path field_path(path, field.key);
    if (!target) {
      if (!keys.total.empty() && field.key == keys.total) {
        TW_ASSIGN(int64_t total, json::as_int64(field.value, field_path));
        (void)total;
      }
      continue;
    }
    if (field.value.is_null()) continue;
    TW_ASSIGN(*target, json::as_int64(field.value, field_path));
  }
  if (input) {
    int64_t total = *input;
    if (__builtin_add_overflow(total, out.cache_read_tokens.value_or(0), &total) ||
        __builtin_add_overflow(total, out.cache_write_tokens.value_or(0), &total))
      return json::invalid(path, "token counts out of range");
    out.input_tokens = total;
  }
  return Status::Ok();
}

int64_t cache_excluded_input(const ir::Usage& usage) {
  int64_t n = usage.input_tokens.value_or(0);
  if (__builtin_sub_overflow(n, usage.cache_read_tokens.value_or(0), &n) ||
      __builtin_sub_overflow(n, usage.cache_write_tokens.value_or(0), &n))
    return 0;
  return n < 0 ? 0 : n;
}

}  // namespace toolwire::dialects
