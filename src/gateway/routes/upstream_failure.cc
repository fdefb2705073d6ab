#include "gateway/routes/upstream_failure.h"

namespace toolwire::gateway::routes {

bool retryable(const Error& e) {
  if (e.http_status >= 500 || e.http_status == 429) return true;
  // No answer, or one that could not be read: another upstream may do better.
  if (e.upstream && e.http_status == 0) return true;
  return e.code == ErrorCode::unavailable || e.code == ErrorCode::deadline_exceeded ||
         e.code == ErrorCode::resource_exhausted;
}

std::string_view error_kind(const Error& e) {
  if (e.http_status >= 500) return "http_5xx";
  if (e.http_status == 429) return "rate_limited";
  if (e.http_status >= 400) return "http_4xx";
  switch (e.code) {
    case ErrorCode::deadline_exceeded:
      return "timeout";
    case ErrorCode::unavailable:
      return "unavailable";
    case ErrorCode::cancelled:
      return "cancelled";
    case ErrorCode::parse_error:
    case ErrorCode::invalid_argument:
      return "bad_response";
    default:
      return "other";
  }
}

// An upstream's failure as this gateway's answer (docs/gateway.md,
// "Upstream failures"), as a reverse proxy answers one: never as the caller's
// fault — no 401 (the caller's key was fine), no 429 (every SDK would
// retry at once) and no 400 for an answer the gateway could not read.
//   the upstream refused the request's content (400, 404, 409, 413, 422):
//     passed on, the caller's to fix;
//   it timed out (408, 504, a deadline or idle timeout): 504;
//   it is overloaded or rate-limiting the gateway (429, 503, 529, an
//     overloaded/rate-limit error event), after the gateway's own retries:
//     503, with its `retry-after`;
//   anything else (401/403: its key was refused; 5xx; a reset; a malformed,
//     invalid-UTF-8 or over-limit answer): 502.
Error gateway_error(Error e) {
  if (!e.upstream) return e;
  switch (e.http_status) {
    case 400:
    case 404:
    case 409:
    case 413:
    case 422:
      return e;
    case 429:
    case 503:
    case 529:
      e.code = ErrorCode::unavailable;
      e.http_status = 503;
      break;
    case 408:
    case 504:
      e.code = ErrorCode::deadline_exceeded;
      e.http_status = 504;
      break;
    case 0:
      if (e.code == ErrorCode::deadline_exceeded) {
        e.http_status = 504;
        break;
      }
      [[fallthrough]];
    default:
      e.code = ErrorCode::internal;
      e.http_status = 502;
  }
  e.path.clear();  // a path into the upstream's dialect means nothing to the caller
  return e;
}

}  // namespace toolwire::gateway::routes
