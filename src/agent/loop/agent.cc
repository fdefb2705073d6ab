// The blocking Agent: one AgentRun at a time, stepped by a RunLoop on the
// caller's thread, so every event is delivered there. The Agent owns the
// executor pool its runs share and keeps the history between runs.
#include "toolwire/agent/agent.h"

#include <iostream>
#include <mutex>
#include <optional>

#include "toolwire/agent/run_loop.h"
#include "toolwire/tools/executor.h"

namespace toolwire::agent {

struct Agent::Impl {
  provider::Provider& provider;
  const tools::Registry& registry;
  AgentOptions opt;
  tools::Executor executor;
  std::vector<ir::Message> history;

  mutable std::mutex mu;
  bool running = false;
  bool cancel_early = false;          // cancel() before the run object existed
  std::shared_ptr<AgentRun> current;  // the run in progress
  std::shared_ptr<AgentRun> last;     // the latest run: judges late remote results

  Impl(provider::Provider& p, const tools::Registry& r, AgentOptions o)
      : provider(p),
        registry(r),
        opt(std::move(o)),
        executor(
            r, tools::ExecutorOptions{std::max<size_t>(1, opt.max_concurrency), opt.tool_timeout}) {
    if (!opt.log)
      opt.log = [](std::string_view line) { std::cerr << "toolwire agent: " << line << "\n"; };
  }

  RunResult run(ir::Message user, const EventSink& emit) {
    {
      std::lock_guard<std::mutex> lock(mu);
      if (running) {
        RunResult res;
        res.reason = StopReason::error;
        res.error = make_error(ErrorCode::failed_precondition,
                               "a run is already in progress on this agent");
        return res;
      }
      running = true;
      cancel_early = false;
    }
    RunLoop loop;
    std::optional<RunResult> out;
    std::shared_ptr<AgentRun> r = AgentRun::start(AgentRunParams{
        .provider = provider,
        .registry = registry,
        .executor = executor,
        .scheduler = loop.scheduler(),
        .options = opt,
        .history = std::move(history),
        .user = std::move(user),
        .on_event = emit,
        .on_done =
            [&](RunResult res, std::vector<ir::Message> h) {
              out = std::move(res);
              history = std::move(h);
            },
    });
    bool cancel_now;
    {
      std::lock_guard<std::mutex> lock(mu);
      current = r;
      last = r;
      cancel_now = cancel_early;
    }
    if (cancel_now) r->cancel();
    loop.run_until([&] { return out.has_value(); });
    {
      std::lock_guard<std::mutex> lock(mu);
      current.reset();
      running = false;
    }
    return std::move(*out);
  }

  std::shared_ptr<AgentRun> latest() const {
    std::lock_guard<std::mutex> lock(mu);
    return current ? current : last;
  }
};

Agent::Agent(provider::Provider& provider, const tools::Registry& registry, AgentOptions options)
    : impl_(std::make_unique<Impl>(provider, registry, std::move(options))) {}

Agent::~Agent() = default;

RunResult Agent::run(std::string user_text, const EventSink& on_event) {
  return run(ir::Message{ir::Role::user, {ir::TextPart{std::move(user_text)}}, {}}, on_event);
}

RunResult Agent::run(ir::Message user_message, const EventSink& on_event) {
  return impl_->run(std::move(user_message), on_event);
}

void Agent::cancel() {
  std::shared_ptr<AgentRun> r;
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    if (!impl_->running) return;
    if (!impl_->current) {
      impl_->cancel_early = true;
      return;
    }
    r = impl_->current;
  }
  r->cancel();
}

Status Agent::submit_result(std::string_view call_id, tools::ToolOutput output) {
  if (std::shared_ptr<AgentRun> r = impl_->latest())
    return r->submit_result(call_id, std::move(output));
  std::string why = "result for unknown call '" + std::string(call_id) + "' ignored";
  impl_->opt.log(why);
  return make_error(ErrorCode::failed_precondition, why);
}

std::vector<std::string> Agent::pending_remote_calls() const {
  if (std::shared_ptr<AgentRun> r = impl_->latest()) return r->pending_remote_calls();
  return {};
}

const std::vector<ir::Message>& Agent::history() const { return impl_->history; }
void Agent::set_history(std::vector<ir::Message> messages) { impl_->history = std::move(messages); }
const AgentOptions& Agent::options() const { return impl_->opt; }

}  // namespace toolwire::agent
