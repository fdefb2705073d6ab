#include "toolwire/ir/response.h"

namespace toolwire::ir {

void add_usage(Usage& sum, const Usage& add) {
  const auto plus = [](std::optional<int64_t>& a, const std::optional<int64_t>& b) {
    if (b) a = a.value_or(0) + *b;
  };
  plus(sum.input_tokens, add.input_tokens);
  plus(sum.output_tokens, add.output_tokens);
  plus(sum.cache_read_tokens, add.cache_read_tokens);
  plus(sum.cache_write_tokens, add.cache_write_tokens);
  sum.estimated |= add.estimated;
}

}  // namespace toolwire::ir
