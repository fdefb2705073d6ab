// The errors of an upstream server (toolwire/provider/upstream_error.h).
#include "toolwire/provider/upstream_error.h"

#include <cmath>
#include <cstdlib>

#include "toolwire/core/http_status.h"
#include "toolwire/transport/redact.h"

namespace toolwire::provider {
namespace {

std::string quoted(std::string_view name) { return "upstream '" + std::string(name) + "'"; }

std::string_view why(int status) {
  switch (status) {
    case 401:
      return " (its key was refused)";
    case 403:
      return " (its key may not do this)";
    case 408:
    case 504:
      return " (it timed out)";
    case 429:
      return " (it is rate-limiting this gateway)";
    case 503:
    case 529:
      return " (it is overloaded)";
    default:
      return "";
  }
}

}  // namespace

std::string retry_after_value(const RateLimits& limits) {
  if (auto v = limits.get("retry-after"); v && !v->empty() && v->size() <= 64)
    return std::string(*v);
  if (auto ms = limits.get("retry-after-ms"); ms && !ms->empty() && ms->size() <= 32) {
    char* end = nullptr;
    std::string text(*ms);
    double v = std::strtod(text.c_str(), &end);
    if (end && *end == '\0' && std::isfinite(v) && v >= 0 && v < 1e12)
      return std::to_string(static_cast<int64_t>(std::ceil(v / 1000.0)));
  }
  return {};
}

Error upstream_status_error(std::string_view name, int status, Error decoded,
                            const RateLimits& limits) {
  Error e = std::move(decoded);
  e.http_status = status;
  e.upstream = true;
  e.retry_after = retry_after_value(limits);
  e.message = quoted(name) + " answered " + std::to_string(status) + std::string(why(status)) +
              (e.message.empty() ? "" : ": " + e.message);
  return e;
}

Error upstream_transport_error(std::string_view name, Error e, std::string_view url) {
  constexpr std::string_view mark = "\x01";
  std::string detail = transport::scrub_address(std::move(e.message), url, mark);
  // The transports' own prefix ("upstream http://host:port: ..."), now
  // without its address, says nothing the name does not.
  for (std::string_view prefix :
       {"upstream \x01: ", "upstream http://\x01: ", "upstream https://\x01: "})
    if (detail.compare(0, prefix.size(), prefix) == 0) detail.erase(0, prefix.size());
  for (size_t at; (at = detail.find(mark)) != std::string::npos;)
    detail.replace(at, mark.size(), "the upstream");
  e.upstream = true;
  e.http_status = 0;
  e.message = quoted(name) +
              (e.code == ErrorCode::deadline_exceeded ? " timed out: " : " failed: ") + detail;
  return e;
}

Error upstream_bad_answer(std::string_view name, std::string_view what, Error e) {
  e.upstream = true;
  e.http_status = 0;
  e.message = quoted(name) + " sent " + std::string(what) +
              (e.to_string().empty() ? "" : ": " + e.to_string());
  e.path.clear();  // a path into the upstream's answer, not into the caller's request
  return e;
}

Error upstream_error_event(std::string_view name, ErrorCode code, std::string_view type,
                           std::string_view message) {
  Error e = make_error(code, quoted(name) + " sent an error event (" + std::string(type) + ")" +
                                 (message.empty() ? "" : ": " + std::string(message)));
  e.upstream = true;
  e.http_status = http_status_for(code);
  return e;
}

}  // namespace toolwire::provider
