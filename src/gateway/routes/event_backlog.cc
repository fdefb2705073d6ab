#include "gateway/routes/event_backlog.h"

#include <algorithm>
#include <type_traits>
#include <utility>
#include <variant>

namespace toolwire::gateway::routes {

void EventBacklog::attach(provider::ProviderCall call) {
  std::lock_guard lock(mu_);
  call_ = std::move(call);
  attached_ = true;
  apply();
}

void EventBacklog::set_client_paused(bool paused) {
  std::lock_guard lock(mu_);
  client_paused_ = paused;
  apply();
}

void EventBacklog::posted(size_t bytes) {
  std::lock_guard lock(mu_);
  bytes_ += bytes;
  if (!full_ && bytes_ > limit_) {
    full_ = true;
    apply();
  }
}

void EventBacklog::handled(size_t bytes) {
  std::lock_guard lock(mu_);
  bytes_ -= std::min(bytes, bytes_);
  if (full_ && bytes_ <= limit_ / 2) {
    full_ = false;
    apply();
  }
}

// Called with the lock held. A pause asked for from the transport's own
// thread (inside its body callback) holds from its next chunk: the curl
// transport's body callback reads HttpCall's pause flag itself.
void EventBacklog::apply() {
  const bool want = client_paused_ || full_;
  if (!attached_ || want == applied_) return;
  applied_ = want;
  call_.set_paused(want);
}

size_t EventBacklog::bytes_of(const ir::StreamEvent& e) {
  constexpr size_t kEvent = 64;
  return kEvent + std::visit(
                      [](const auto& x) -> size_t {
                        using T = std::decay_t<decltype(x)>;
                        if constexpr (std::is_same_v<T, ir::TextDelta>)
                          return x.text.size() + x.logprobs.size();
                        else if constexpr (std::is_same_v<T, ir::ThinkingDelta>)
                          return x.text.size() + x.signature.size() + x.encrypted_content.size();
                        else if constexpr (std::is_same_v<T, ir::ToolCallDelta>)
                          return x.fragment.size();
                        else
                          return 0;
                      },
                      e);
}

}  // namespace toolwire::gateway::routes
