// style.h — the pieces every codec folder writes the same way:
//
// - TW_ASSIGN(decl, expr): evaluates a Result, returns its Error from the
//   enclosing function, else binds its value (`TW_ASSIGN(auto obj,
//   json::as_object(e, path));`). Beside TW_TRY (toolwire/core/result.h) for a
//   Status, it is the one way a codec propagates an error.
// - warn(): appends a Warning; the path is a json::Path (or, where a path is
//   already text, that text).
// - the extra-field keys toolwire itself reserves in ir::Request::extra.
#pragma once

#include <string>
#include <string_view>

#include "dialects/common/json_in.h"
#include "toolwire/core/result.h"
#include "toolwire/core/warnings.h"

#define TW_ASSIGN_CAT2(a, b) a##b
#define TW_ASSIGN_CAT(a, b) TW_ASSIGN_CAT2(a, b)
#define TW_ASSIGN(decl, expr) TW_ASSIGN_IMPL(TW_ASSIGN_CAT(tw_assign_result_, __LINE__), decl, expr)
#define TW_ASSIGN_IMPL(tmp, decl, expr)    \
  auto tmp = (expr);                       \
  if (!tmp) return std::move(tmp).error(); \
  decl = std::move(*tmp)

namespace toolwire::dialects {

// A tool definition of a kind the IR has no form for (OpenAI `custom`,
// Anthropic server tools), kept raw: written back by its own dialect only.
inline constexpr std::string_view kUnsupportedToolKey = "x-unsupported-tool";

// Extras whose loss would change what a request asks, so another dialect
// refuses the request instead of dropping them with a warning (request_tail.h):
// a tool the provider runs itself (OpenAI Responses `web_search`,
// `file_search`, `computer_use_preview`, `mcp`...), kept raw; and the stored
// conversation a Responses request continues (previous_response_id,
// conversation). A gateway with a response store resolves previous_response_id
// into messages and removes the extra first.
inline constexpr std::string_view kProviderToolKey = "x-provider-tool";
inline constexpr std::string_view kPreviousResponseKey = "previous_response_id";
inline constexpr std::string_view kConversationKey = "conversation";

inline void warn(Warnings& warnings, std::string code, const json::Path& path,
                 std::string message) {
  warnings.push_back(Warning{std::move(code), path.str(), std::move(message)});
}
inline void warn(Warnings& warnings, std::string code, std::string path, std::string message) {
  warnings.push_back(Warning{std::move(code), std::move(path), std::move(message)});
}

}  // namespace toolwire::dialects
