// toolwire/core/result.h — errors as values.
//
// Every fallible function on the request path returns `Result<T>` (or `Status`
// for no value) instead of throwing. An `Error` carries a canonical code, a
// human message and, for input errors, the JSON path of the offending value:
//
//   Result<ir::Request> r = codec.decode_request(body, ctx);
//   if (!r) return http_error(r.error());        // "$.messages[2].role: unknown role 'bot'"
//   use(*r);
//
// We do not use std::expected: clang 14 (our libFuzzer compiler) cannot
// compile libstdc++ 12's <expected>, and the fuzz targets must see the same API.
#pragma once

#include <cassert>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace toolwire {

enum class ErrorCode {
  invalid_argument,     // malformed or semantically wrong input (HTTP 400)
  parse_error,          // bytes that are not valid JSON / SSE / UTF-8 (HTTP 400)
  not_found,            // unknown tool, route, model (HTTP 404)
  permission_denied,    // sandbox refusals, auth (HTTP 403)
  unauthenticated,      // missing or bad API key (HTTP 401)
  resource_exhausted,   // rate limits, size caps (HTTP 429 / 413)
  deadline_exceeded,    // timeouts (HTTP 504)
  cancelled,            // cooperative cancellation
  unavailable,          // upstream down, connection reset (HTTP 502/503)
  failed_precondition,  // state does not allow the operation
  unimplemented,        // feature the target dialect cannot express
  internal,             // a bug: broken invariant
};

std::string_view to_string(ErrorCode code);

struct Error {
  ErrorCode code = ErrorCode::internal;
  std::string message;
  std::string path;  // JSON path such as "$.messages[3].content", empty if none
  // The HTTP status to answer with when it must be exactly this one (an
  // upstream's status passed through, 413, 431...); 0: the code's usual one.
  int http_status = 0;
  // A fault of an upstream server seen through this one: a provider's call
  // that reached (or tried to reach) its server and failed there — an error
  // status, a reset, a timeout, an answer it could not read. A gateway
  // answers it as a bad gateway (502/503/504), never as its caller's fault.
  bool upstream = false;
  // That upstream's `retry-after` (delta-seconds or an HTTP date), passed on
  // when the gateway gives up; empty: none.
  std::string retry_after;

  // "path: message" when a path is known, else the message.
  std::string to_string() const { return path.empty() ? message : path + ": " + message; }
};

inline Error make_error(ErrorCode code, std::string message, std::string path = {}) {
  return Error{code, std::move(message), std::move(path), 0};
}

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::in_place_index<0>, std::move(value)) {}  // NOLINT: implicit by design
  Result(Error error)
      : v_(std::in_place_index<1>, std::make_shared<Error>(std::move(error))) {}  // NOLINT

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & {
    assert(ok());
    return std::get<0>(v_);
  }
  const T& value() const& {
    assert(ok());
    return std::get<0>(v_);
  }
  T&& value() && {
    assert(ok());
    return std::get<0>(std::move(v_));
  }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const Error& error() const& {
    assert(!ok());
    return *std::get<1>(v_);
  }
  Error&& error() && {
    assert(!ok());
    return std::move(*std::get<1>(v_));
  }

 private:
  // The error lives on the heap: a success (the hot path, returned by every
  // decoder step) carries one pointer, not two empty strings to build and
  // destroy.
  std::variant<T, std::shared_ptr<Error>> v_;
};

// Result<void>: success or an Error.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Error error) : error_(std::make_shared<const Error>(std::move(error))) {}  // NOLINT
  static Status Ok() { return Status(); }

  bool ok() const { return error_ == nullptr; }
  explicit operator bool() const { return ok(); }
  const Error& error() const {
    assert(error_);
    return *error_;
  }

 private:
  std::shared_ptr<const Error> error_;  // null: success (see Result)
};

}  // namespace toolwire

// Propagate an error: TW_TRY(expr) returns its Error from the enclosing function.
#define TW_TRY(expr)                                    \
  do {                                                  \
    auto&& tw_try_status_ = (expr);                     \
    if (!tw_try_status_) return tw_try_status_.error(); \
  } while (0)
