// request_size.h — how many bytes a request's JSON will take, roughly, so an
// encoder reserves its output once instead of doubling it five or six times
// (a 64 KB request copied ~64 KB more and asked malloc for ever larger blocks).
#pragma once

#include <cstddef>

#include "toolwire/ir/request.h"

namespace toolwire::dialects {

// A slight overestimate for both dialects: text and arguments are counted at
// 1.25x (escapes; OpenAI sends arguments as an escaped string), plus a fixed
// allowance per part for keys and punctuation.
template <class S>
size_t estimate_request_json_size(const ir::BasicRequest<S>& req);

}  // namespace toolwire::dialects
