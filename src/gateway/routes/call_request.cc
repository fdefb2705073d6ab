#include "gateway/routes/call_request.h"

#include <cstdlib>
#include <string>

namespace toolwire::gateway::routes {

std::optional<Error> check_limits(const ir::Request& request, const Limits& limits) {
  if (request.messages.size() > limits.max_messages)
    return make_error(ErrorCode::invalid_argument,
                      "too many messages: " + std::to_string(request.messages.size()) +
                          " (this gateway accepts at most " + std::to_string(limits.max_messages) +
                          ")",
                      "$.messages");
  if (request.tools.size() > limits.max_tools)
    return make_error(ErrorCode::invalid_argument,
                      "too many tools: " + std::to_string(request.tools.size()) +
                          " (this gateway accepts at most " + std::to_string(limits.max_tools) +
                          ")",
                      "$.tools");
  return std::nullopt;
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
