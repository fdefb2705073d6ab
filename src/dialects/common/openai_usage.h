// openai_usage.h — the `usage` object both OpenAI APIs write, under their own
// names: input and output counts, cached input tokens in a details object.
#pragma once

#include <cstdint>
#include <string_view>

#include "dialects/common/json_in.h"
#include "dialects/common/style.h"
#include "toolwire/ir/response.h"

namespace toolwire::dialects {

struct OpenAiUsageKeys {
  std::string_view input, output, input_details;  // "prompt_tokens", ...
};

// Decodes a `usage` object (null members count as absent; others ignored).
Result<ir::Usage> decode_openai_usage(json::element e, const json::Path& path,
                                      const OpenAiUsageKeys& keys);

// OpenAI usage has no count of tokens written to a cache: a count above 0 is
// dropped with a warning at `path`.
void warn_dropped_cache_write(const ir::Usage& usage, std::string_view path, Warnings& warnings);

// input + output, saturated: hostile counts must not overflow.
inline int64_t total_tokens(int64_t in, int64_t out) {
  int64_t total;
  if (__builtin_add_overflow(in, out, &total)) total = INT64_MAX;
  return total;
}

}  // namespace toolwire::dialects
