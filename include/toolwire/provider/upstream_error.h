// toolwire/provider/upstream_error.h — the errors of an upstream server, as
// every HTTP provider reports them: marked Error::upstream (a gateway answers
// them as a bad gateway, never as its caller's fault), naming the upstream
// by its configured name, never by its address, and carrying its
// `retry-after`.
//
//   done(upstream_status_error("openai", 401, codec.decode_error(401, body), limits));
//   // "upstream 'openai' answered 401 (its key was refused): Incorrect API key"
#pragma once

#include <string>
#include <string_view>

#include "toolwire/core/result.h"
#include "toolwire/provider/provider.h"

namespace toolwire::provider {

// A non-2xx answer; `decoded` is the dialect's reading of its error body.
Error upstream_status_error(std::string_view name, int status, Error decoded,
                            const RateLimits& limits);

// A transport failure (no answer, a reset, a timeout) of a request to `url`:
// the address is scrubbed from the transport's message.
Error upstream_transport_error(std::string_view name, Error e, std::string_view url);

// An answer that could not be used (malformed, invalid UTF-8, too large, a
// stream that broke off): `what` says which, `e` the detail.
Error upstream_bad_answer(std::string_view name, std::string_view what, Error e);

// An error the upstream reported in-band (a stream's `error` event): the
// status its code conventionally carries, so it maps like an HTTP answer.
Error upstream_error_event(std::string_view name, ErrorCode code, std::string_view type,
                           std::string_view message);

// The `retry-after` to pass on: the upstream's own, else its
// `retry-after-ms` rounded up to seconds; empty: none.
std::string retry_after_value(const RateLimits& limits);

}  // namespace toolwire::provider
