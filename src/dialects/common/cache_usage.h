// cache_usage.h — usage counts in the dialects whose input count excludes the
// tokens read from and written to a prompt cache (Anthropic, Bedrock), while
// the IR's input count includes them.
#pragma once

#include <cstdint>
#include <string_view>

#include "dialects/common/json_in.h"
#include "toolwire/ir/response.h"

namespace toolwire::dialects {

struct CacheUsageKeys {
  std::string_view input, output, cache_read, cache_write;
  std::string_view total;  // checked to be an integer, not kept; empty: none
};

// Decodes a usage object into `out`; counts missing on the wire stay unset
// (null ones too), other members are dropped.
Status decode_cache_excluded_usage(json::element usage, const json::Path& path,
                                   const CacheUsageKeys& keys, ir::Usage& out);

// The IR's input count without the cache's (>= 0).
int64_t cache_excluded_input(const ir::Usage& usage);

}  // namespace toolwire::dialects
