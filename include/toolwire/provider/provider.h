// toolwire/provider/provider.h — the model interface (version 1).
//
// A Provider turns an IR request into an IR response, either whole
// (generate) or as the one stream vocabulary of ir/stream.h (stream). It is
// the small, versioned model spec of the Vercel AI SDK (doGenerate/doStream)
// in C++: both calls are asynchronous, report exactly once through `done`,
// and can be cancelled through the returned handle. Next to the response a
// provider hands back what the upstream said about its limits (rate-limit
// headers) and how long it took (time to first token, total, tokens/s).
//
//   std::unique_ptr<Provider> p = ...;            // see factory.h, scripted.h
//   ProviderCall call = p->stream(request,
//       [](const ir::StreamEvent& e) { if (auto* t = std::get_if<ir::TextDelta>(&e))
//       print(t->text); },
//       [](Result<Generation> r) {
//         if (!r) return report(r.error());
//         use(r->response, r->timing.time_to_first_token,
//         r->limits.get("x-ratelimit-remaining-tokens"));
//       });
//   call.cancel();                                // any thread; `done` then gets `cancelled`
//
//   Result<Generation> g = p->generate_sync(request);   // blocking helper
//
// Callbacks may run on another thread (an HTTP provider's event loop) or
// inline before stream()/generate() return (the scripted provider); they must
// not block. Events of one call never run concurrently with each other.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "toolwire/core/result.h"
#include "toolwire/core/warnings.h"
#include "toolwire/ir/request.h"
#include "toolwire/ir/response.h"
#include "toolwire/ir/stream.h"
#include "toolwire/provider/capabilities.h"

namespace toolwire::provider {

// Bumped when the Provider interface changes incompatibly.
inline constexpr int kProviderApiVersion = 1;

// What the upstream said about its limits: every `x-ratelimit-*`,
// `anthropic-ratelimit-*` and `retry-after` response header, verbatim and in
// order (names lower-cased).
struct RateLimits {
  std::vector<std::pair<std::string, std::string>> headers;

  std::optional<std::string_view> get(std::string_view name) const;
  // The first of the given header names that is present, parsed as an integer.
  std::optional<int64_t> number(std::initializer_list<std::string_view> names) const;
  // Remaining requests / tokens in whichever dialect's naming the upstream uses.
  std::optional<int64_t> requests_remaining() const;
  std::optional<int64_t> tokens_remaining() const;
  bool empty() const { return headers.empty(); }
};

struct Timing {
  std::chrono::microseconds time_to_first_token{0};  // to the first text/thinking/tool-call byte
  std::chrono::microseconds total{0};                // request start to the last byte
  // Output tokens over the generation time (total - time to first token);
  // 0 when the upstream reported no output tokens.
  double output_tokens_per_second = 0;
  int attempts = 0;  // HTTP attempts (retries + 1); 0 for in-process providers
};

struct Generation {
  ir::Response response;
  RateLimits limits;
  Timing timing;
  Warnings warnings;  // what adapting / encoding the request dropped
};

using EventCallback = std::function<void(const ir::StreamEvent&)>;
using DoneCallback = std::function<void(Result<Generation>)>;

// A started call. Copyable; cancel() is safe from any thread, any number of
// times, before or after completion.
class ProviderCall {
 public:
  ProviderCall() = default;
  explicit ProviderCall(std::function<void()> cancel, Warnings warnings = {},
                        std::function<void(bool)> pause = {})
      : cancel_(std::make_shared<std::function<void()>>(std::move(cancel))),
        pause_(pause ? std::make_shared<std::function<void(bool)>>(std::move(pause)) : nullptr),
        warnings_(std::move(warnings)) {}
  void cancel() const {
    if (cancel_ && *cancel_) (*cancel_)();
  }
  // Flow control for a consumer that cannot keep up (a gateway whose client
  // reads slowly): paused, the provider stops reading its upstream, so no
  // further events arrive until set_paused(false). Any thread; a no-op for
  // providers without it (in-process ones) and after completion.
  void set_paused(bool paused) const {
    if (pause_ && *pause_) (*pause_)(paused);
  }
  // What adapting and encoding the request dropped, known as soon as the
  // call started (a gateway puts them in its response head, before the first
  // event). Generation::warnings repeats them at the end.
  const Warnings& warnings() const { return warnings_; }

 private:
  std::shared_ptr<std::function<void()>> cancel_;
  std::shared_ptr<std::function<void(bool)>> pause_;
  Warnings warnings_;
};

class Provider {
 public:
  virtual ~Provider() = default;
  virtual int api_version() const { return kProviderApiVersion; }
  // "openai", "anthropic", "openai_compatible", "scripted", or a profile name.
  virtual std::string_view name() const = 0;
  virtual const Capabilities& capabilities() const = 0;
  // The model used when a request leaves `model` empty.
  virtual std::string_view default_model() const { return {}; }

  // The whole response. `done` runs exactly once.
  virtual ProviderCall generate(ir::Request request, DoneCallback done) = 0;
  // The response as events, then `done` with the accumulated response (or
  // the error that ended the stream). `done` runs exactly once, after the
  // last event.
  virtual ProviderCall stream(ir::Request request, EventCallback on_event, DoneCallback done) = 0;

  // Blocking helpers; never call them from a provider callback.
  Result<Generation> generate_sync(ir::Request request);
  Result<Generation> stream_sync(ir::Request request, EventCallback on_event);
};

}  // namespace toolwire::provider
