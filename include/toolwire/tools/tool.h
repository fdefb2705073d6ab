// toolwire/tools/tool.h — what a tool is: its spec, its handler, its context.
//
// A tool is a name, a description, a JSON Schema for its arguments and a
// handler. The handler gets the already-validated arguments as nlohmann::json
// (a DOM is fine at the tool-handler edge) and a ToolContext, and returns a
// ToolOutput. Failures the model should see are ToolOutput::error(...); a
// thrown exception also becomes an error result (message only, no stack).
//
//   tools::ToolSpec spec;
//   spec.name = "get_weather";
//   spec.description = "Current weather for a city";
//   spec.input_schema = R"({"type":"object","properties":{"city":{"type":"string"}},
//                           "required":["city"]})";
//   spec.handler = tools::SyncHandler([](const nlohmann::json& args, tools::ToolContext& ctx) {
//     if (ctx.cancelled()) return tools::ToolOutput::error("cancelled");
//     return tools::ToolOutput::text("sunny in " + args["city"].get<std::string>());
//   });
//   Status st = registry.add(std::move(spec));
//
// Three handler flavours: SyncHandler (runs on an executor worker),
// CallbackHandler (calls `done` exactly once, from any thread) and
// FutureHandler (returns a std::future). Handlers must honour cancellation:
// on timeout the call's result is already an error and `ctx.cancelled()`
// turns true; a handler that never returns keeps its worker busy.
#pragma once

#include <any>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "toolwire/ir/parts.h"

namespace toolwire::tools {

using Clock = std::chrono::steady_clock;

// A shared, copyable cancellation flag. Copies observe the same state.
// wait_for() lets a handler sleep and still wake up promptly on cancel.
class CancellationToken {
 public:
  CancellationToken() : state_(std::make_shared<State>()) {}

  bool cancelled() const { return state_->cancelled.load(std::memory_order_acquire); }
  void cancel() const {
    std::vector<std::function<void()>> run;
    {
      std::lock_guard<std::mutex> lock(state_->mu);
      if (!state_->cancelled.exchange(true, std::memory_order_acq_rel))
        for (auto& [id, fn] : state_->callbacks) run.push_back(std::move(fn));
      state_->callbacks.clear();
    }
    state_->cv.notify_all();
    for (auto& fn : run) fn();
  }
  // Runs `fn` once when the token is cancelled, on the cancelling thread (at
  // once on this thread when it already is). Returns an id for
  // remove_on_cancel(), which drops `fn` unless it already ran or is running.
  uint64_t on_cancel(std::function<void()> fn) const {
    {
      std::lock_guard<std::mutex> lock(state_->mu);
      if (!cancelled()) {
        uint64_t id = ++state_->next_id;
        state_->callbacks.emplace_back(id, std::move(fn));
        return id;
      }
    }
    fn();
    return 0;
  }
  void remove_on_cancel(uint64_t id) const {
    std::lock_guard<std::mutex> lock(state_->mu);
    std::erase_if(state_->callbacks, [id](const auto& c) { return c.first == id; });
  }
  // Sleeps up to `d`; returns true if cancelled (early or at the end).
  template <class Rep, class Period>
  bool wait_for(std::chrono::duration<Rep, Period> d) const {
    std::unique_lock<std::mutex> lock(state_->mu);
    return state_->cv.wait_for(lock, d, [&] { return cancelled(); });
  }

 private:
  struct State {
    std::atomic<bool> cancelled{false};
    std::mutex mu;
    std::condition_variable cv;
    uint64_t next_id = 0;
    std::vector<std::pair<uint64_t, std::function<void()>>> callbacks;
  };
  std::shared_ptr<State> state_;
};

// Per-call context handed to a handler.
struct ToolContext {
  std::string call_id;    // the model's tool-call id, kept on the result
  std::string tool_name;  // the registered (internal) name, e.g. "agent.spawn"
  CancellationToken cancel;
  Clock::time_point deadline = Clock::time_point::max();  // max(): no deadline
  // Opaque per-session data supplied by the caller (agent loop, gateway).
  // The handler is responsible for synchronising access to what it points at.
  std::shared_ptr<std::any> session;

  bool cancelled() const { return cancel.cancelled(); }
  bool expired() const { return Clock::now() >= deadline; }
  template <class T>
  T* session_data() const {
    return session ? std::any_cast<T>(session.get()) : nullptr;
  }
};

// What a handler returns: content parts (text, images, raw blocks) and an error flag.
struct ToolOutput {
  std::vector<ir::ResultContent> content;
  bool is_error = false;

  static ToolOutput text(std::string s) {
    ToolOutput o;
    o.content.emplace_back(ir::TextPart{std::move(s)});
    return o;
  }
  static ToolOutput error(std::string message) {
    ToolOutput o = text(std::move(message));
    o.is_error = true;
    return o;
  }
  // The JSON value serialised as one text part.
  static ToolOutput json(const nlohmann::json& v) { return text(v.dump()); }
};

using SyncHandler = std::function<ToolOutput(const nlohmann::json& args, ToolContext& ctx)>;
using Completion = std::function<void(ToolOutput)>;
// Must call `done` exactly once (later calls are ignored), from any thread.
using CallbackHandler =
    std::function<void(const nlohmann::json& args, ToolContext ctx, Completion done)>;
using FutureHandler =
    std::function<std::future<ToolOutput>(const nlohmann::json& args, ToolContext ctx)>;
using Handler = std::variant<SyncHandler, CallbackHandler, FutureHandler>;

// Everything needed to register a tool.
struct ToolSpec {
  // Internal name: ^[a-zA-Z0-9_.-]{1,64}$; dots are mapped on the wire (see names.h).
  std::string name;
  std::string description;
  // JSON Schema (draft 2020-12 or draft-07) for the arguments object, as JSON text.
  std::string input_schema = R"({"type":"object","properties":{}})";
  Handler handler;
  // Never runs concurrently with any other call on the same executor.
  bool exclusive = false;
  // Overrides the executor's default per-call timeout when set.
  std::optional<std::chrono::milliseconds> timeout;
  // Export with OpenAI strict mode (all properties required, optional ones
  // nullable). Dispatch then drops `null` for properties the original schema
  // does not require before validating, so strict-mode arguments validate.
  bool strict = false;
};

}  // namespace toolwire::tools
