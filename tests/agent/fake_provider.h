// A programmable Provider for loop tests: a function decides the events of
// each turn; optionally they are streamed from a thread with a delay between
// events, so a test can cancel in the middle of a stream.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "toolwire/ir/accumulator.h"
#include "toolwire/provider/provider.h"

namespace toolwire::testing {

struct CallSpec {
  std::string id, name, arguments;
};

inline std::vector<ir::StreamEvent> text_turn(const std::string& text) {
  return {ir::MessageStart{"m", "fake", 0}, ir::TextDelta{text.substr(0, text.size() / 2)},
          ir::TextDelta{text.substr(text.size() / 2)}, ir::UsageEvent{ir::Usage{10, 5, {}, {}}},
          ir::Finish{ir::FinishReason{ir::FinishReason::Kind::stop, "stop"}}};
}

inline std::vector<ir::StreamEvent> calls_turn(const std::vector<CallSpec>& calls,
                                               const std::string& text = "") {
  std::vector<ir::StreamEvent> ev{ir::MessageStart{"m", "fake", 0}};
  if (!text.empty()) ev.push_back(ir::TextDelta{text});
  int i = 0;
  for (const auto& c : calls) {
    ev.push_back(ir::ToolCallStart{i, c.id, c.name});
    ev.push_back(ir::ToolCallDelta{i, c.arguments});
    ev.push_back(ir::ToolCallEnd{i});
    ++i;
  }
  ev.push_back(ir::UsageEvent{ir::Usage{10, 7, {}, {}}});
  ev.push_back(ir::Finish{ir::FinishReason{ir::FinishReason::Kind::tool_calls, "tool_calls"}});
  return ev;
}

class FakeProvider final : public provider::Provider {
 public:
  using Fn = std::function<std::vector<ir::StreamEvent>(const ir::Request&, int call_no)>;
  explicit FakeProvider(Fn fn) : fn_(std::move(fn)) {}
  ~FakeProvider() override {
    for (auto& t : threads_) t.join();
  }

  std::chrono::milliseconds event_delay{0};  // > 0: stream from a thread

  std::string_view name() const override { return "fake"; }
  const provider::Capabilities& capabilities() const override { return caps_; }

  provider::ProviderCall generate(ir::Request r, provider::DoneCallback done) override {
    return stream(std::move(r), {}, std::move(done));
  }

  provider::ProviderCall stream(ir::Request r, provider::EventCallback on_event,
                                provider::DoneCallback done) override {
    int no;
    {
      std::lock_guard<std::mutex> lock(mu_);
      requests_.push_back(r);
      no = static_cast<int>(requests_.size());
    }
    auto events = fn_(r, no);
    auto cancelled = std::make_shared<std::atomic<bool>>(false);
    auto body = [events, on_event, done, cancelled, delay = event_delay] {
      ir::StreamAccumulator acc;
      for (const auto& e : events) {
        if (delay.count() > 0) std::this_thread::sleep_for(delay);
        if (cancelled->load()) return done(make_error(ErrorCode::cancelled, "cancelled"));
        acc.add(e);
        if (on_event) on_event(e);
      }
      if (acc.error()) return done(make_error(ErrorCode::unavailable, acc.error()->message));
      provider::Generation g;
      g.response = std::move(acc).take();
      done(std::move(g));
    };
    if (event_delay.count() > 0) {
      std::lock_guard<std::mutex> lock(mu_);
      threads_.emplace_back(body);
    } else {
      body();
    }
    return provider::ProviderCall([cancelled] { cancelled->store(true); });
  }

  std::vector<ir::Request> requests() const {
    std::lock_guard<std::mutex> lock(mu_);
    return requests_;
  }

 private:
  Fn fn_;
  provider::Capabilities caps_;
  mutable std::mutex mu_;
  std::vector<ir::Request> requests_;
  std::vector<std::thread> threads_;
};

}  // namespace toolwire::testing
