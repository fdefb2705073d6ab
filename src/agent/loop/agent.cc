// The agent loop. One thread (run()'s caller) owns the history and emits
// every event; provider callbacks, tool workers and submit_result() only post
// items into a shared inbox, so no lock is held while user code runs.
#include "toolwire/agent/agent.h"

#include <condition_variable>
#include <deque>
#include <iostream>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <variant>

#include <nlohmann/json.hpp>

#include "toolwire/agent/history.h"
#include "toolwire/tools/executor.h"

namespace toolwire::agent {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::microseconds;

struct ProviderEventItem {
  uint64_t gen = 0;
  ir::StreamEvent event;
};
struct ProviderDoneItem {
  uint64_t gen = 0;
  Result<provider::Generation> result;
};
struct LocalResultItem {
  size_t index = 0;
  ir::ToolResultPart result;
  microseconds duration{0};
};
struct RemoteResultItem {
  std::string call_id;
  tools::ToolOutput output;
};
using Item = std::variant<ProviderEventItem, ProviderDoneItem, LocalResultItem, RemoteResultItem>;

// Why a remote call is no longer pending: decides the log line for a result
// that still arrives.
enum class Closed { answered, timed_out, cancelled };

// State shared with callbacks that may outlive a run (a provider that calls
// back late): held by shared_ptr.
struct Shared {
  std::mutex mu;
  std::condition_variable cv;
  std::deque<Item> inbox;
  bool running = false;
  bool cancel_requested = false;
  bool cancel_seen = false;
  provider::ProviderCall call;
  std::optional<tools::CancellationToken> batch_cancel;
  struct Pending {
    Clock::time_point deadline;
  };
  std::unordered_map<std::string, Pending> pending;  // remote call id → deadline
  std::unordered_map<std::string, Closed> closed;    // remote calls no longer pending

  void push(Item item) {
    {
      std::lock_guard<std::mutex> lock(mu);
      inbox.push_back(std::move(item));
    }
    cv.notify_all();
  }
};

enum class Wake { item, cancel, timeout };

ir::ToolResultPart error_part(const std::string& call_id, std::string message) {
  return tools::error_result(call_id, std::move(message));
}

std::string text_of(const std::vector<ir::Part>& parts) {
  std::string out;
  for (const auto& p : parts)
    if (auto* t = std::get_if<ir::TextPart>(&p)) out += t->text;
  return out;
}

void add_usage(ir::Usage& sum, const ir::Usage& u) {
  auto add = [](std::optional<int64_t>& a, const std::optional<int64_t>& b) {
    if (b) a = a.value_or(0) + *b;
  };
  add(sum.input_tokens, u.input_tokens);
  add(sum.output_tokens, u.output_tokens);
  add(sum.cache_read_tokens, u.cache_read_tokens);
  add(sum.cache_write_tokens, u.cache_write_tokens);
  if (u.estimated) sum.estimated = true;  // a sum with one estimate in it is an estimate
}

// The end-turn tool's answer: its "answer" (or only string) argument, else the raw arguments.
std::string end_turn_answer(const ir::ToolCallPart& call) {
  nlohmann::json j = nlohmann::json::parse(call.arguments, nullptr, false);
  if (j.is_object()) {
    if (auto it = j.find("answer"); it != j.end() && it->is_string()) return it->get<std::string>();
    if (j.size() == 1 && j.begin()->is_string()) return j.begin()->get<std::string>();
  }
  return call.arguments;
}

}  // namespace

struct Agent::Impl {
  provider::Provider& provider;
  const tools::Registry& registry;
  AgentOptions opt;
  tools::Executor executor;
  std::vector<ir::Message> history;
  std::shared_ptr<Shared> sh = std::make_shared<Shared>();
  uint64_t generation = 0;
  bool synth_end_turn = false;  // the end-turn tool is offered by the agent itself

  Impl(provider::Provider& p, const tools::Registry& r, AgentOptions o)
      : provider(p),
        registry(r),
        opt(std::move(o)),
        executor(r, tools::ExecutorOptions{std::max<size_t>(1, opt.max_concurrency), opt.tool_timeout}) {
    if (!opt.log) opt.log = [](std::string_view line) { std::cerr << "toolwire agent: " << line << "\n"; };
    if (!opt.end_turn_tool.empty() && !registry.find(opt.end_turn_tool) && !find_remote(opt.end_turn_tool))
      synth_end_turn = true;
  }

  const RemoteTool* find_remote(std::string_view name) const {
    for (const auto& r : opt.remote_tools)
      if (r.definition.name == name) return &r;
    return nullptr;
  }

  bool is_end_turn(const std::string& name) const {
    if (opt.end_turn_tool.empty()) return false;
    if (name == opt.end_turn_tool) return true;
    const tools::Tool* t = registry.find(opt.end_turn_tool);
    return t && t->wire_name() == name;
  }

  Wake wait(Item& out, Clock::time_point deadline) {
    std::unique_lock<std::mutex> lock(sh->mu);
    auto ready = [&] { return !sh->inbox.empty() || (sh->cancel_requested && !sh->cancel_seen); };
    if (deadline == Clock::time_point::max()) sh->cv.wait(lock, ready);
    else sh->cv.wait_until(lock, deadline, ready);
    if (sh->cancel_requested && !sh->cancel_seen) {
      sh->cancel_seen = true;
      return Wake::cancel;
    }
    if (sh->inbox.empty()) return Wake::timeout;
    out = std::move(sh->inbox.front());
    sh->inbox.pop_front();
    return Wake::item;
  }

  bool cancel_requested() {
    std::lock_guard<std::mutex> lock(sh->mu);
    return sh->cancel_requested;
  }

  ir::Request build_request() const {
    ir::Request req = opt.base;
    size_t start = window_start(history, opt.max_turns);
    req.messages.assign(history.begin() + static_cast<std::ptrdiff_t>(start), history.end());
    req.tools = registry.definitions();
    for (const auto& r : opt.remote_tools) req.tools.push_back(r.definition);
    if (synth_end_turn) {
      ir::ToolDefinition d;
      d.name = opt.end_turn_tool;
      d.description = "Call this when the task is complete, with your final answer for the user.";
      d.input_schema = R"({"type":"object","properties":{"answer":{"type":"string"}},"required":["answer"]})";
      req.tools.push_back(std::move(d));
    }
    if (req.tools.empty()) {
      req.tool_choice.reset();
      req.parallel_tool_calls.reset();
    } else if (!opt.parallel_tool_calls) {
      req.parallel_tool_calls = false;
    }
    req.stream = opt.stream;
    if (req.model.empty()) req.model = std::string(provider.default_model());
    return req;
  }

  // One model call. nullopt when cancelled; an Error when the provider failed.
  std::optional<Result<provider::Generation>> call_model(int round, const EventSink& emit) {
    uint64_t gen = ++generation;
    std::weak_ptr<Shared> weak = sh;
    auto on_event = [weak, gen](const ir::StreamEvent& e) {
      if (auto s = weak.lock()) s->push(ProviderEventItem{gen, e});
    };
    auto on_done = [weak, gen](Result<provider::Generation> r) {
      if (auto s = weak.lock()) s->push(ProviderDoneItem{gen, std::move(r)});
    };
    ir::Request req = build_request();
    provider::ProviderCall call =
        opt.stream ? provider.stream(std::move(req), on_event, on_done) : provider.generate(std::move(req), on_done);
    bool cancel_now;
    {
      std::lock_guard<std::mutex> lock(sh->mu);
      sh->call = call;
      cancel_now = sh->cancel_requested;
    }
    if (cancel_now) call.cancel();

    bool cancelled = cancel_now;
    std::optional<Result<provider::Generation>> done;
    // After a cancel, a provider owes us `done` promptly; do not hang on one that forgets.
    Clock::time_point give_up = Clock::time_point::max();
    while (!done) {
      Item item;
      Wake w = wait(item, give_up);
      if (w == Wake::cancel) {
        cancelled = true;
        call.cancel();
        give_up = Clock::now() + std::chrono::seconds(5);
        continue;
      }
      if (w == Wake::timeout) break;
      if (auto* e = std::get_if<ProviderEventItem>(&item); e && e->gen == gen && !cancelled) {
        if (auto* t = std::get_if<ir::TextDelta>(&e->event); t && emit) emit(TextDeltaEvent{round, t->text});
        if (auto* t = std::get_if<ir::ThinkingDelta>(&e->event); t && !t->redacted && !t->text.empty() && emit)
          emit(ThinkingDeltaEvent{round, t->text});
      } else if (auto* d = std::get_if<ProviderDoneItem>(&item); d && d->gen == gen) {
        done.emplace(std::move(d->result));
      }
      // Anything else is stale (a late result of an earlier round): dropped.
    }
    {
      std::lock_guard<std::mutex> lock(sh->mu);
      sh->call = provider::ProviderCall();
    }
    if (cancelled) return std::nullopt;
    return done;
  }

  // Runs the calls of one model turn; every call gets exactly one result.
  std::vector<ir::ToolResultPart> run_tools(int round, const std::vector<ir::ToolCallPart>& calls,
                                            const EventSink& emit) {
    const size_t n = calls.size();
    std::vector<std::optional<ir::ToolResultPart>> results(n);
    std::vector<Clock::time_point> started(n, Clock::now());
    std::unordered_map<std::string, size_t> remote_index;
    std::vector<size_t> local;
    std::vector<bool> is_remote(n, false);
    tools::CancellationToken token;
    {
      std::lock_guard<std::mutex> lock(sh->mu);
      sh->batch_cancel = token;
      if (sh->cancel_requested) token.cancel();
      for (size_t i = 0; i < n; ++i) {
        const auto& c = calls[i];
        if (const RemoteTool* rt = find_remote(c.name)) {
          is_remote[i] = true;
          if (!c.arguments_valid) {
            results[i] = error_part(c.id, "arguments for " + c.name + " are not valid JSON");
            continue;
          }
          // Registered before the call is announced, so an answer sent from
          // the event callback itself is accepted.
          sh->pending[c.id] = Shared::Pending{Clock::now() + rt->timeout.value_or(opt.remote_timeout)};
          sh->closed.erase(c.id);
          remote_index[c.id] = i;
        } else if (synth_end_turn && is_end_turn(c.name)) {
          results[i] = tools::to_result(c.id, tools::ToolOutput::text("ok"));
        } else {
          local.push_back(i);
        }
      }
    }
    if (emit)
      for (size_t i = 0; i < n; ++i) emit(ToolCallEvent{round, calls[i], is_remote[i]});
    size_t remaining = n;
    for (size_t i = 0; i < n; ++i)
      if (results[i]) {
        --remaining;
        if (emit) emit(ToolResultEvent{round, calls[i].name, *results[i], microseconds(0)});
      }

    // Local calls: the executor's pool runs them (concurrency, timeouts,
    // exclusive tools); these threads only wait on it and post the results.
    std::vector<std::jthread> waiters;
    tools::BatchOptions bo;
    bo.session = opt.session;
    bo.cancel = token;
    auto post = [this, &calls, bo](size_t i) {
      auto t0 = Clock::now();
      ir::ToolResultPart r = executor.run_one(calls[i], bo);
      sh->push(LocalResultItem{i, std::move(r), std::chrono::duration_cast<microseconds>(Clock::now() - t0)});
    };
    if (local.size() == 1 && remote_index.empty()) {
      // One local call and nothing else to wait for: run it on this thread
      // (no hand-off); cancel() still reaches it through `token`.
      post(local[0]);
    } else if (!local.empty()) {
      if (opt.parallel_tool_calls) {
        for (size_t i : local) waiters.emplace_back([post, i] { post(i); });
      } else {
        waiters.emplace_back([post, local] {
          for (size_t i : local) post(i);  // in order; a cancelled token fails the rest at once
        });
      }
    }

    auto record = [&](size_t i, ir::ToolResultPart r, microseconds d) {
      if (results[i]) return;
      r.call_id = calls[i].id;
      results[i] = std::move(r);
      --remaining;
      if (emit) emit(ToolResultEvent{round, calls[i].name, *results[i], d});
    };
    auto since = [&](size_t i) { return std::chrono::duration_cast<microseconds>(Clock::now() - started[i]); };

    while (remaining > 0) {
      Clock::time_point next = Clock::time_point::max();
      {
        std::lock_guard<std::mutex> lock(sh->mu);
        for (const auto& [id, idx] : remote_index)
          if (auto it = sh->pending.find(id); it != sh->pending.end()) next = std::min(next, it->second.deadline);
      }
      Item item;
      Wake w = wait(item, next);
      if (w == Wake::cancel) {
        token.cancel();
        std::vector<size_t> closed;
        {
          std::lock_guard<std::mutex> lock(sh->mu);
          for (const auto& [id, idx] : remote_index)
            if (sh->pending.erase(id)) {
              sh->closed[id] = Closed::cancelled;
              closed.push_back(idx);
            }
        }
        for (size_t i : closed) record(i, error_part(calls[i].id, "cancelled"), since(i));
        continue;  // local results follow promptly: the executor fails cancelled calls at once
      }
      if (w == Wake::timeout) {
        std::vector<size_t> expired;
        {
          std::lock_guard<std::mutex> lock(sh->mu);
          auto now = Clock::now();
          for (const auto& [id, idx] : remote_index) {
            auto it = sh->pending.find(id);
            if (it != sh->pending.end() && it->second.deadline <= now) {
              sh->pending.erase(it);
              sh->closed[id] = Closed::timed_out;
              expired.push_back(idx);
            }
          }
        }
        for (size_t i : expired) {
          auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(since(i)).count();
          record(i, error_part(calls[i].id, "tool_result_timeout: no result from the remote tool '" + calls[i].name +
                                                "' within " + std::to_string(ms) + " ms"),
                 since(i));
        }
        continue;
      }
      if (auto* l = std::get_if<LocalResultItem>(&item)) {
        if (l->index < n) record(l->index, std::move(l->result), l->duration);
      } else if (auto* r = std::get_if<RemoteResultItem>(&item)) {
        if (auto it = remote_index.find(r->call_id); it != remote_index.end())
          record(it->second, tools::to_result(r->call_id, std::move(r->output)), since(it->second));
      }
    }
    waiters.clear();  // joins: every waiter has posted by now
    {
      std::lock_guard<std::mutex> lock(sh->mu);
      sh->batch_cancel.reset();
      // Results posted after we stopped waiting (none expected) are dropped.
      std::erase_if(sh->inbox, [](const Item& it) { return std::holds_alternative<LocalResultItem>(it); });
    }
    std::vector<ir::ToolResultPart> out;
    out.reserve(n);
    for (auto& r : results) out.push_back(std::move(*r));
    return out;
  }

  RunResult run(ir::Message user, const EventSink& emit) {
    RunResult res;
    {
      std::lock_guard<std::mutex> lock(sh->mu);
      if (sh->running) {
        res.reason = StopReason::error;
        res.error = make_error(ErrorCode::failed_precondition, "a run is already in progress on this agent");
        return res;
      }
      sh->running = true;
      sh->cancel_requested = false;
      sh->cancel_seen = false;
      sh->inbox.clear();
    }
    history.push_back(std::move(user));
    std::string last_text;
    int round = 0;
    bool stopped = false;
    while (!stopped) {
      if (round >= opt.max_rounds) {
        res.reason = StopReason::round_limit;
        break;
      }
      if (cancel_requested()) {
        res.reason = StopReason::cancelled;
        break;
      }
      ++round;
      auto got = call_model(round, emit);
      if (!got) {
        res.reason = StopReason::cancelled;
        break;
      }
      if (!*got) {
        res.reason = StopReason::error;
        res.error = got->error();
        if (emit) emit(ErrorEvent{round, got->error()});
        break;
      }
      provider::Generation& g = got->value();
      add_usage(res.usage, g.response.usage);
      if (!opt.stream && emit)
        for (const auto& p : g.response.parts)
          if (auto* t = std::get_if<ir::TextPart>(&p)) emit(TextDeltaEvent{round, t->text});

      std::vector<ir::ToolCallPart> calls;
      for (const auto& p : g.response.parts)
        if (auto* c = std::get_if<ir::ToolCallPart>(&p)) calls.push_back(*c);
      last_text = text_of(g.response.parts);
      if (!g.response.parts.empty())
        history.push_back(ir::Message{ir::Role::assistant, g.response.parts, {}});

      RoundFinishedEvent fin{round, g.response.finish, g.response.usage, g.timing, g.limits,
                             static_cast<int>(calls.size())};
      if (calls.empty()) {
        if (emit) emit(fin);
        res.reason = StopReason::final_text;
        res.text = last_text;
        break;
      }
      std::vector<ir::ToolResultPart> results = run_tools(round, calls, emit);
      ir::Message tool_msg{ir::Role::tool, {}, {}};
      for (auto& r : results) tool_msg.parts.emplace_back(std::move(r));
      history.push_back(std::move(tool_msg));
      if (emit) emit(fin);

      for (const auto& c : calls)
        if (is_end_turn(c.name)) {
          res.reason = StopReason::end_turn_tool;
          res.text = end_turn_answer(c);
          stopped = true;
          break;
        }
      if (!stopped && cancel_requested()) {
        res.reason = StopReason::cancelled;
        stopped = true;
      }
    }
    if (res.reason == StopReason::round_limit || res.reason == StopReason::cancelled) res.text = last_text;
    res.rounds = round;
    {
      std::lock_guard<std::mutex> lock(sh->mu);
      sh->running = false;
      sh->inbox.clear();
    }
    if (emit) emit(FinalAnswerEvent{res.reason, res.text, res.rounds});
    return res;
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
  provider::ProviderCall call;
  std::optional<tools::CancellationToken> token;
  {
    std::lock_guard<std::mutex> lock(impl_->sh->mu);
    if (!impl_->sh->running) return;
    impl_->sh->cancel_requested = true;
    call = impl_->sh->call;
    token = impl_->sh->batch_cancel;
  }
  impl_->sh->cv.notify_all();
  call.cancel();
  if (token) token->cancel();
}

Status Agent::submit_result(std::string_view call_id, tools::ToolOutput output) {
  Shared& s = *impl_->sh;
  std::string id(call_id);
  std::string why;
  {
    std::lock_guard<std::mutex> lock(s.mu);
    if (s.pending.erase(id)) {
      s.closed[id] = Closed::answered;
      s.inbox.push_back(RemoteResultItem{id, std::move(output)});
    } else if (auto it = s.closed.find(id); it != s.closed.end()) {
      why = it->second == Closed::answered  ? "duplicate result for call '" + id + "' ignored"
            : it->second == Closed::timed_out ? "late result for call '" + id + "' ignored (it timed out)"
                                              : "late result for call '" + id + "' ignored (it was cancelled)";
    } else {
      why = "result for unknown call '" + id + "' ignored";
    }
  }
  if (why.empty()) {
    s.cv.notify_all();
    return Status::Ok();
  }
  impl_->opt.log(why);
  return make_error(ErrorCode::failed_precondition, why);
}

std::vector<std::string> Agent::pending_remote_calls() const {
  std::lock_guard<std::mutex> lock(impl_->sh->mu);
  std::vector<std::string> out;
  for (const auto& [id, p] : impl_->sh->pending) out.push_back(id);
  std::sort(out.begin(), out.end());
  return out;
}

const std::vector<ir::Message>& Agent::history() const { return impl_->history; }
void Agent::set_history(std::vector<ir::Message> messages) { impl_->history = std::move(messages); }
const AgentOptions& Agent::options() const { return impl_->opt; }

}  // namespace toolwire::agent
