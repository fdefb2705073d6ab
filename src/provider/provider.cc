// Provider's blocking helpers and RateLimits lookups.
#include "toolwire/provider/provider.h"

#include <charconv>
#include <future>

#include "toolwire/dialects/dialect.h"
#include "toolwire/transport/http_types.h"

namespace toolwire::provider {

std::optional<std::string_view> RateLimits::get(std::string_view name) const {
  for (const auto& [k, v] : headers)
    if (transport::iequals(k, name)) return std::string_view(v);
  return std::nullopt;
}

std::optional<int64_t> RateLimits::number(std::initializer_list<std::string_view> names) const {
  for (std::string_view n : names) {
    auto v = get(n);
    if (!v) continue;
    int64_t out = 0;
    auto [ptr, ec] = std::from_chars(v->data(), v->data() + v->size(), out);
    if (ec == std::errc() && ptr == v->data() + v->size()) return out;
  }
  return std::nullopt;
}

namespace {
// x-ratelimit-remaining-<what>, else a dialect's own
// <rate_limit_prefix><what>-remaining.
std::optional<int64_t> remaining(const RateLimits& limits, std::string_view what) {
  if (auto n = limits.number({"x-ratelimit-remaining-" + std::string(what)})) return n;
  for (const dialects::Dialect& d : dialects::all_dialects()) {
    if (d.rate_limit_prefix.empty()) continue;
    std::string name = std::string(d.rate_limit_prefix) + std::string(what) + "-remaining";
    if (auto n = limits.number({name})) return n;
  }
  return std::nullopt;
}
}  // namespace

std::optional<int64_t> RateLimits::requests_remaining() const {
  return remaining(*this, "requests");
}

std::optional<int64_t> RateLimits::tokens_remaining() const { return remaining(*this, "tokens"); }

namespace {
// `done` may run inline or on another thread; a promise covers both.
Result<Generation> wait(std::future<Result<Generation>> f) { return f.get(); }
}  // namespace

Result<Generation> Provider::generate_sync(ir::Request request) {
  auto promise = std::make_shared<std::promise<Result<Generation>>>();
  auto future = promise->get_future();
  generate(std::move(request),
           [promise](Result<Generation> r) { promise->set_value(std::move(r)); });
  return wait(std::move(future));
}

Result<Generation> Provider::stream_sync(ir::Request request, EventCallback on_event) {
  auto promise = std::make_shared<std::promise<Result<Generation>>>();
  auto future = promise->get_future();
  stream(std::move(request), std::move(on_event),
         [promise](Result<Generation> r) { promise->set_value(std::move(r)); });
  return wait(std::move(future));
}

}  // namespace toolwire::provider
