#include "gateway/routes/call_request.h"

#include <cstdlib>
#include <string>

namespace toolwire::gateway::routes {

std::optional<Error> check_limits(const ir::Request& request, const Limits& limits) {
  const auto too_many = [](std::string_view what, size_t n, size_t max) -> std::optional<Error> {
    if (n <= max) return std::nullopt;
    return make_error(ErrorCode::invalid_argument,
                      "too many " + std::string(what) + ": " + std::to_string(n) +
                          " (this gateway accepts at most " + std::to_string(max) + ")",
                      "$." + std::string(what));
  };
  if (auto e = too_many("messages", request.messages.size(), limits.max_messages)) return e;
  return too_many("tools", request.tools.size(), limits.max_tools);
}

std::optional<int64_t> client_deadline_ms(const http::Request& req) {
  std::string_view v = req.header("x-stainless-timeout");
  if (v.empty() || v.size() > 32) return std::nullopt;
  std::string text(v);
  char* end = nullptr;
  double secs = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0' || !(secs > 0) || secs > 86'400.0) return std::nullopt;
  return static_cast<int64_t>(secs * 1000.0);
}

}  // namespace toolwire::gateway::routes
