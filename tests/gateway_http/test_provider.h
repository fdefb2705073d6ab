// An in-process Provider for gateway tests.
//
// A model whose name starts with "hold" is held: the call waits until the
// test pushes its events (emit/finish/fail), which is how tests stream on
// demand, stall an upstream or disconnect in the middle of an answer. Every
// held call records cancel(); cancel() reports `cancelled` through done, as
// the HTTP provider does, and then drops the gateway's callbacks, so nothing
// the gateway handed over stays alive. Any other model answers at once with
// "echo: <last user text>".
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "toolwire/ir/accumulator.h"
#include "toolwire/provider/provider.h"

namespace toolwire::testing {

inline std::string last_user_text(const ir::Request& r) {
  for (auto it = r.messages.rbegin(); it != r.messages.rend(); ++it) {
    if (it->role != ir::Role::user) continue;
    for (const auto& p : it->parts)
      if (const auto* t = std::get_if<ir::TextPart>(&p)) return t->text;
  }
  return {};
}

inline std::vector<ir::StreamEvent> echo_events(const std::string& text) {
  return {ir::MessageStart{"msg_1", "test-upstream", 0}, ir::TextDelta{"echo: "},
          ir::TextDelta{text}, ir::UsageEvent{ir::Usage{3, 2, {}, {}}},
          ir::Finish{ir::FinishReason{ir::FinishReason::Kind::stop, "stop"}}};
}

// One call the test drives. Callbacks run under the call's lock (they only
// post to the gateway's strand), so events of a call never overlap.
class HeldCall {
 public:
  HeldCall(ir::Request r, provider::EventCallback on_event, provider::DoneCallback done)
      : request(std::move(r)), on_event_(std::move(on_event)), done_(std::move(done)) {}

  const ir::Request request;

  // False once the call ended (finished, failed or cancelled).
  bool emit(const ir::StreamEvent& e) {
    std::lock_guard lock(mu_);
    if (ended_) return false;
    acc_.add(e);
    if (on_event_) on_event_(e);
    return true;
  }
  bool finish() {
    std::lock_guard lock(mu_);
    if (ended_) return false;
    provider::Generation g;
    g.response = std::move(acc_).take();
    end_locked(std::move(g));
    return true;
  }
  bool fail(Error e) {
    std::lock_guard lock(mu_);
    if (ended_) return false;
    end_locked(std::move(e));
    return true;
  }
  void cancel() {
    std::lock_guard lock(mu_);
    cancelled_ = true;
    if (!ended_) end_locked(make_error(ErrorCode::cancelled, "cancelled"));
    cv_.notify_all();
  }

  bool cancelled() const {
    std::lock_guard lock(mu_);
    return cancelled_;
  }
  bool ended() const {
    std::lock_guard lock(mu_);
    return ended_;
  }
  bool wait_cancelled(std::chrono::milliseconds limit) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, limit, [&] { return cancelled_; });
  }

 private:
  void end_locked(Result<provider::Generation> r) {
    ended_ = true;
    auto done = std::move(done_);
    on_event_ = nullptr;
    done_ = nullptr;
    if (done) done(std::move(r));
  }

  mutable std::mutex mu_;
  std::condition_variable cv_;
  provider::EventCallback on_event_;
  provider::DoneCallback done_;
  ir::StreamAccumulator acc_;
  bool ended_ = false;
  bool cancelled_ = false;
};

class TestProvider final : public provider::Provider {
 public:
  std::string_view name() const override { return "test"; }
  const provider::Capabilities& capabilities() const override { return caps_; }

  provider::ProviderCall generate(ir::Request r, provider::DoneCallback done) override {
    return stream(std::move(r), nullptr, std::move(done));
  }

  provider::ProviderCall stream(ir::Request r, provider::EventCallback on_event,
                                provider::DoneCallback done) override {
    calls_.fetch_add(1);
    // Lives as long as the ProviderCall handle the gateway keeps: tells a
    // test when the gateway has let go of a finished call.
    auto token = std::make_shared<int>(0);
    {
      std::lock_guard lock(mu_);
      handles_.push_back(token);
    }
    if (r.model.rfind("hold", 0) == 0) {
      auto call = std::make_shared<HeldCall>(std::move(r), std::move(on_event), std::move(done));
      {
        std::lock_guard lock(mu_);
        held_.push_back(call);
      }
      cv_.notify_all();
      std::weak_ptr<HeldCall> weak = call;
      return provider::ProviderCall([weak, token] {
        if (auto c = weak.lock()) c->cancel();
      });
    }
    ir::StreamAccumulator acc;
    for (const auto& e : echo_events(last_user_text(r))) {
      acc.add(e);
      if (on_event) on_event(e);
    }
    provider::Generation g;
    g.response = std::move(acc).take();
    done(std::move(g));
    return provider::ProviderCall([token] {});
  }

  // The n-th held call (0-based), waiting up to `limit` for it to arrive.
  std::shared_ptr<HeldCall> held(
      size_t n, std::chrono::milliseconds limit = std::chrono::milliseconds(5000)) {
    std::unique_lock lock(mu_);
    if (!cv_.wait_for(lock, limit, [&] { return held_.size() > n; })) return nullptr;
    return held_[n];
  }
  size_t held_count() const {
    std::lock_guard lock(mu_);
    return held_.size();
  }
  // Held calls that have not ended: each still holds the gateway's callbacks.
  size_t open_calls() const {
    std::lock_guard lock(mu_);
    size_t n = 0;
    for (const auto& c : held_) n += c->ended() ? 0 : 1;
    return n;
  }
  int calls() const { return calls_.load(); }
  // Call handles the gateway still holds.
  size_t live_handles() const {
    std::lock_guard lock(mu_);
    size_t n = 0;
    for (const auto& h : handles_) n += h.expired() ? 0 : 1;
    return n;
  }

 private:
  provider::Capabilities caps_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::shared_ptr<HeldCall>> held_;
  std::vector<std::weak_ptr<int>> handles_;
  std::atomic<int> calls_{0};
};

}  // namespace toolwire::testing
