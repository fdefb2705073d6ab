// The agent loop as a state machine. Every step runs inside a function
// posted to the caller's scheduler (never two at once), so the step state
// needs no lock; only what cancel(), submit_result() and
// pending_remote_calls() touch from other threads sits under `mu_`.
//
//   starting ─▶ model ─▶ tools ─▶ model ─▶ ... ─▶ done
//                 │        │
//                 └────────┴── cancel / error / final text / limits ─▶ done
//
// A step first absorbs a pending cancel, so a cancel posted behind stream
// events stops the run before those events are emitted.
//
// TurnProtocol::envelope reuses the tools phase with one call in flight at a
// time: the answer's calls (envelope_plan.h) run in priority order, the
// pseudo-tools inline, and the round's results go back as one user message.
#include <algorithm>
#include <deque>
#include <iostream>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <utility>
#include <variant>

#include <nlohmann/json.hpp>

#include "agent/loop/envelope_plan.h"
#include "toolwire/agent/agent_run.h"
#include "toolwire/agent/history.h"
#include "toolwire/core/json_depth.h"
#include "toolwire/textformats/envelope_turn.h"

namespace toolwire::agent {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::microseconds;

// Why a remote call is no longer pending: decides the log line for a result
// that still arrives.
enum class Closed { answered, timed_out, cancelled };

std::string text_of(const std::vector<ir::Part>& parts) {
  std::string out;
  for (const auto& p : parts)
    if (auto* t = std::get_if<ir::TextPart>(&p)) out += t->text;
  return out;
}

// The end-turn tool's answer: its "answer" (or only string) argument, else the raw arguments.
std::string end_turn_answer(const ir::ToolCallPart& call) {
  nlohmann::json j = parse_json_bounded<nlohmann::json>(call.arguments);
  if (j.is_object()) {
    if (auto it = j.find("answer"); it != j.end() && it->is_string()) return it->get<std::string>();
    if (j.size() == 1 && j.begin()->is_string()) return j.begin()->get<std::string>();
  }
  return call.arguments;
}

class Run final : public AgentRun, public std::enable_shared_from_this<Run> {
 public:
  explicit Run(AgentRunParams p)
      : provider_(p.provider),
        registry_(p.registry),
        executor_(p.executor),
        sched_(std::move(p.scheduler)),
        opt_(std::move(p.options)),
        emit_(std::move(p.on_event)),
        on_done_(std::move(p.on_done)),
        history_(std::move(p.history)),
        user_(std::move(p.user)) {
    if (!opt_.log)
      opt_.log = [](std::string_view line) { std::cerr << "toolwire agent: " << line << "\n"; };
    if (opt_.turn_protocol == TurnProtocol::envelope)
      env_ = std::make_unique<envelope::Protocol>(registry_, opt_.remote_tools);
    else if (!opt_.end_turn_tool.empty() && !registry_.find(opt_.end_turn_tool) &&
             !find_remote(opt_.end_turn_tool))
      synth_end_turn_ = true;
  }

  void launch() {
    self_ = shared_from_this();
    post_step([](Run& r) { r.begin(); });
  }

  void cancel() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (finished_ || cancel_requested_) return;
      cancel_requested_ = true;
    }
    post_step([](Run&) {});  // the step's prelude does the work
  }

  Status submit_result(std::string_view call_id, tools::ToolOutput output) override {
    std::string id(call_id);
    std::string why;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (pending_.erase(id)) {
        closed_[id] = Closed::answered;
      } else if (auto it = closed_.find(id); it != closed_.end()) {
        why = it->second == Closed::answered ? "duplicate result for call '" + id + "' ignored"
              : it->second == Closed::timed_out
                  ? "late result for call '" + id + "' ignored (it timed out)"
                  : "late result for call '" + id + "' ignored (it was cancelled)";
      } else {
        why = "result for unknown call '" + id + "' ignored";
      }
    }
    if (why.empty()) {
      post_step([id, out = std::move(output)](Run& r) mutable {
        r.on_remote_result(id, std::move(out));
      });
      return Status::Ok();
    }
    opt_.log(why);
    return make_error(ErrorCode::failed_precondition, why);
  }

  std::vector<std::string> pending_remote_calls() const override {
    std::vector<std::string> out;
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (const auto& [id, idx] : pending_) out.push_back(id);
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  bool finished() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return finished_;
  }

 private:
  enum class Phase { starting, model, tools, done };

  // ---- plumbing ----

  // Runs `f` as one step: nothing once done; a pending cancel first.
  template <class F>
  void step(F&& f) {
    if (phase_ == Phase::done) return;
    absorb_cancel();
    if (phase_ == Phase::done) return;
    f(*this);
  }

  template <class F>
  void post_step(F f) {
    sched_.post([self = shared_from_this(), f = std::move(f)]() mutable { self->step(f); });
  }

  bool cancel_flag() const {
    std::lock_guard<std::mutex> lock(mu_);
    return cancel_requested_;
  }

  void emit(const Event& e) {
    if (emit_) emit_(e);
  }

  const RemoteTool* find_remote(std::string_view name) const {
    for (const auto& r : opt_.remote_tools)
      if (r.definition.name == name) return &r;
    return nullptr;
  }

  bool is_end_turn(const std::string& name) const {
    if (env_ || opt_.end_turn_tool.empty()) return false;
    if (name == opt_.end_turn_tool) return true;
    const tools::Tool* t = registry_.find(opt_.end_turn_tool);
    return t && t->wire_name() == name;
  }

  // ---- steps ----

  void begin() {
    if (user_) history_.push_back(std::move(*user_));
    next_round();
  }

  ir::Request build_request() const {
    ir::Request req = opt_.base;
    size_t start = window_start(history_, opt_.max_turns);
    req.messages.assign(history_.begin() + static_cast<std::ptrdiff_t>(start), history_.end());
    if (env_) {  // the tools are described in the system prompt, and called in the text
      req.system.push_back(ir::SystemPart{env_->system_prompt(), false});
      req.tool_choice.reset();
      req.parallel_tool_calls.reset();
      req.stream = opt_.stream;
      if (req.model.empty()) req.model = std::string(provider_.default_model());
      return req;
    }
    req.tools = opt_.client_tools;
    for (auto& d : registry_.definitions()) req.tools.push_back(std::move(d));
    for (const auto& r : opt_.remote_tools) req.tools.push_back(r.definition);
    if (synth_end_turn_) {
      ir::ToolDefinition d;
      d.name = opt_.end_turn_tool;
      d.description = "Call this when the task is complete, with your final answer for the user.";
      d.input_schema =
          R"({"type":"object","properties":{"answer":{"type":"string"}},"required":["answer"]})";
      req.tools.push_back(std::move(d));
    }
    if (req.tools.empty()) {
      req.tool_choice.reset();
      req.parallel_tool_calls.reset();
    } else if (!opt_.parallel_tool_calls) {
      req.parallel_tool_calls = false;
    }
    req.stream = opt_.stream;
    if (req.model.empty()) req.model = std::string(provider_.default_model());
    return req;
  }

  void next_round() {
    if (round_ >= opt_.max_rounds) {
      if (env_) {  // only end_turn ends an envelope turn: running out of rounds is a failure
        Error e = make_error(ErrorCode::resource_exhausted,
                             "the model did not call end_turn within max_rounds (" +
                                 std::to_string(opt_.max_rounds) + " model calls)");
        res_.error = e;
        emit(ErrorEvent{round_, e});
      }
      return finish(StopReason::round_limit);
    }
    if (cancel_flag()) return finish(StopReason::cancelled);
    ++round_;
    phase_ = Phase::model;
    const uint64_t gen = ++gen_;
    std::weak_ptr<Run> weak = weak_from_this();
    // Provider callbacks come from its thread (or inline): they only post.
    auto on_event = [weak, gen](const ir::StreamEvent& e) {
      if (auto s = weak.lock()) s->post_step([gen, e](Run& r) { r.on_model_event(gen, e); });
    };
    auto on_done = [weak, gen](Result<provider::Generation> res) {
      if (auto s = weak.lock())
        s->post_step(
            [gen, res = std::move(res)](Run& r) mutable { r.on_model_done(gen, std::move(res)); });
    };
    call_ = opt_.stream ? provider_.stream(build_request(), on_event, on_done)
                        : provider_.generate(build_request(), on_done);
  }

  void on_model_event(uint64_t gen, const ir::StreamEvent& e) {
    if (gen != gen_ || phase_ != Phase::model) return;  // stale: an earlier call's
    // An envelope answer is JSON for the loop, not text for the user.
    if (auto* t = std::get_if<ir::TextDelta>(&e); t && !env_) emit(TextDeltaEvent{round_, t->text});
    if (auto* t = std::get_if<ir::ThinkingDelta>(&e); t && !t->redacted && !t->text.empty())
      emit(ThinkingDeltaEvent{round_, t->text});
  }

  void on_model_done(uint64_t gen, Result<provider::Generation> got) {
    if (gen != gen_ || phase_ != Phase::model) return;
    call_ = provider::ProviderCall();
    if (!got) {
      res_.error = got.error();
      emit(ErrorEvent{round_, got.error()});
      return finish(StopReason::error);
    }
    provider::Generation& g = got.value();
    ir::add_usage(res_.usage, g.response.usage);
    if (env_) return on_envelope_answer(g);
    if (!opt_.stream)
      for (const auto& p : g.response.parts)
        if (auto* t = std::get_if<ir::TextPart>(&p)) emit(TextDeltaEvent{round_, t->text});

    std::vector<ir::ToolCallPart> calls;
    for (const auto& p : g.response.parts)
      if (auto* c = std::get_if<ir::ToolCallPart>(&p)) calls.push_back(*c);
    last_text_ = text_of(g.response.parts);
    if (!g.response.parts.empty())
      history_.push_back(ir::Message{ir::Role::assistant, g.response.parts, {}});

    fin_ = RoundFinishedEvent{round_,   g.response.finish, g.response.usage,
                              g.timing, g.limits,          static_cast<int>(calls.size())};
    if (calls.empty()) {
      emit(fin_);
      res_.text = last_text_;
      return finish(StopReason::final_text);
    }
    start_tools(std::move(calls));
  }

  // Every call of the turn gets exactly one result before the round ends,
  // except the ones handed back (hand_back_unknown_calls).
  void start_tools(std::vector<ir::ToolCallPart> calls) {
    phase_ = Phase::tools;
    ++batch_;
    calls_ = std::move(calls);
    const size_t n = calls_.size();
    results_.assign(n, std::nullopt);
    started_.assign(n, Clock::now());
    announced_.assign(n, true);
    std::vector<bool> is_remote(n, false);
    std::vector<bool> handed_back(n, false);
    remote_index_.clear();
    local_queue_.clear();
    inflight_.clear();
    client_calls_.clear();
    remaining_ = n;
    std::vector<std::pair<std::string, std::chrono::milliseconds>> waits;
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (size_t i = 0; i < n; ++i) {
        const auto& c = calls_[i];
        if (const RemoteTool* rt = find_remote(c.name)) {
          is_remote[i] = true;
          if (!c.arguments_valid) {
            results_[i] =
                tools::error_result(c.id, "arguments for " + c.name + " are not valid JSON");
            continue;
          }
          // Registered before the call is announced, so an answer sent from
          // the event callback itself is accepted.
          pending_[c.id] = i;
          closed_.erase(c.id);
          remote_index_[c.id] = i;
          waits.emplace_back(c.id, rt->timeout.value_or(opt_.remote_timeout));
        } else if (synth_end_turn_ && is_end_turn(c.name)) {
          results_[i] = tools::to_result(c.id, tools::ToolOutput::text("ok"));
        } else if (opt_.hand_back_unknown_calls && !registry_.find(c.name)) {
          handed_back[i] = true;
          client_calls_.push_back(c);
          --remaining_;
        } else {
          local_queue_.push_back(i);
        }
      }
    }
    std::weak_ptr<Run> weak = weak_from_this();
    for (auto& wait : waits) {
      const std::string id = wait.first;  // clang 14 cannot capture a structured binding
      remote_timers_[id] = sched_.post_after(wait.second, [weak, id] {
        if (auto s = weak.lock()) s->step([id](Run& r) { r.on_remote_timeout(id); });
      });
    }
    for (size_t i = 0; i < n; ++i)
      if (!handed_back[i]) emit(ToolCallEvent{round_, calls_[i], is_remote[i]});
    for (size_t i = 0; i < n; ++i)
      if (results_[i]) {
        --remaining_;
        emit(ToolResultEvent{round_, calls_[i].name, *results_[i], microseconds(0)});
      }
    absorb_cancel();  // a cancel from a ToolCallEvent callback starts no local call
    if (phase_ != Phase::tools) return;
    limit_ = opt_.parallel_tool_calls ? std::max<size_t>(1, opt_.max_concurrency) : 1;
    pump_local();
    maybe_end_round();
  }

  // Submits queued local calls while this run has fewer than limit_ in flight.
  void pump_local() {
    std::weak_ptr<Run> weak = weak_from_this();
    while (inflight_.size() < limit_ && !local_queue_.empty()) {
      size_t i = local_queue_.front();
      local_queue_.pop_front();
      const uint64_t batch = batch_;
      const Clock::time_point t0 = Clock::now();
      tools::CallOptions co{opt_.session, opt_.tool_timeout};
      inflight_[i] = executor_.submit(calls_[i], co, [weak, batch, i, t0](ir::ToolResultPart r) {
        auto d = std::chrono::duration_cast<microseconds>(Clock::now() - t0);
        if (auto s = weak.lock())
          s->post_step([batch, i, d, r = std::move(r)](Run& run) mutable {
            run.on_local_done(batch, i, std::move(r), d);
          });
      });
    }
  }

  void record(size_t i, ir::ToolResultPart r, microseconds d) {
    if (results_[i]) return;
    r.call_id = calls_[i].id;
    results_[i] = std::move(r);
    --remaining_;
    if (i == env_current_) env_current_ = kNone;
    if (announced_[i]) emit(ToolResultEvent{round_, calls_[i].name, *results_[i], d});
  }

  microseconds since(size_t i) const {
    return std::chrono::duration_cast<microseconds>(Clock::now() - started_[i]);
  }

  void on_local_done(uint64_t batch, size_t i, ir::ToolResultPart r, microseconds d) {
    if (batch != batch_ || phase_ != Phase::tools) return;
    inflight_.erase(i);
    record(i, std::move(r), d);
    advance();
  }

  void on_remote_result(const std::string& id, tools::ToolOutput out) {
    if (phase_ != Phase::tools) return;
    auto it = remote_index_.find(id);
    if (it == remote_index_.end()) return;
    if (auto t = remote_timers_.find(id); t != remote_timers_.end()) {
      t->second.cancel();
      remote_timers_.erase(t);
    }
    record(it->second, tools::to_result(id, std::move(out)), since(it->second));
    advance();
  }

  void on_remote_timeout(const std::string& id) {
    if (phase_ != Phase::tools) return;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!pending_.erase(id)) return;  // answered or cancelled first
      closed_[id] = Closed::timed_out;
    }
    remote_timers_.erase(id);
    size_t i = remote_index_.at(id);
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(since(i)).count();
    record(i,
           tools::error_result(id, "tool_result_timeout: no result from the remote tool '" +
                                       calls_[i].name + "' within " + std::to_string(ms) + " ms"),
           since(i));
    advance();
  }

  // After a result: the next queued call(s), then the round's end when all are in.
  void advance() {
    if (env_)
      envelope_next();
    else
      pump_local();
    maybe_end_round();
  }

  void maybe_end_round() {
    if (phase_ == Phase::tools && remaining_ == 0) end_round();
  }

  void end_round() {
    for (auto& [id, t] : remote_timers_) t.cancel();
    remote_timers_.clear();
    remote_index_.clear();
    inflight_.clear();
    if (env_) return end_envelope_round();
    ir::Message tool_msg{ir::Role::tool, {}, {}};
    for (auto& r : results_)
      if (r) tool_msg.parts.emplace_back(std::move(*r));  // none for a handed-back call
    results_.clear();
    if (!tool_msg.parts.empty()) history_.push_back(std::move(tool_msg));
    emit(fin_);
    for (const auto& c : calls_)
      if (is_end_turn(c.name)) {
        res_.text = end_turn_answer(c);
        return finish(StopReason::end_turn_tool);
      }
    if (cancel_flag()) return finish(StopReason::cancelled);
    if (!client_calls_.empty()) {
      res_.client_calls = std::move(client_calls_);
      client_calls_.clear();
      return finish(StopReason::client_calls);
    }
    next_round();
  }

  // ---- the envelope protocol ----

  void on_envelope_answer(provider::Generation& g) {
    bool native_calls = false;
    ir::Message said{ir::Role::assistant, {}, {}};
    for (auto& p : g.response.parts) {
      if (std::holds_alternative<ir::ToolCallPart>(p))
        native_calls = true;  // never in the history: it would need a native result
      else
        said.parts.push_back(std::move(p));
    }
    std::string answer = text_of(said.parts);
    if (!said.parts.empty()) history_.push_back(std::move(said));
    envelope::Plan plan = env_->plan(answer, round_, native_calls);
    fin_ = RoundFinishedEvent{round_,   g.response.finish, g.response.usage,
                              g.timing, g.limits,          static_cast<int>(plan.steps.size())};
    phase_ = Phase::tools;
    ++batch_;
    const size_t n = plan.steps.size();
    calls_.clear();
    steps_.clear();
    for (auto& s : plan.steps) {
      calls_.push_back(s.call);
      steps_.push_back(std::move(s));
    }
    env_errors_ = std::move(plan.errors);
    results_.assign(n, std::nullopt);
    started_.assign(n, Clock::now());
    announced_.assign(n, false);
    remote_index_.clear();
    inflight_.clear();
    local_queue_.clear();
    for (size_t i = 0; i < n; ++i) local_queue_.push_back(i);
    remaining_ = n;
    env_current_ = kNone;
    limit_ = 1;
    advance();
  }

  void announce(size_t i, bool remote) {
    announced_[i] = true;
    started_[i] = Clock::now();
    emit(ToolCallEvent{round_, calls_[i], remote});
  }

  // Runs queued calls in order until one has to be waited for. A pending
  // cancel stops it (cancel_tools answers the rest).
  void envelope_next() {
    while (phase_ == Phase::tools && env_current_ == kNone && !local_queue_.empty()) {
      absorb_cancel();
      if (phase_ != Phase::tools || cancel_seen_) return;
      const size_t i = local_queue_.front();
      local_queue_.pop_front();
      const envelope::Step& s = steps_[i];
      const ir::ToolCallPart& c = calls_[i];
      switch (s.kind) {
        case envelope::Kind::send_chat: {
          // Messages of one run read as separate lines.
          std::string delta =
              last_text_.empty() || last_text_.back() == '\n' ? s.text : "\n" + s.text;
          last_text_ += delta;
          emit(TextDeltaEvent{round_, std::move(delta)});
          record(i, tools::to_result(c.id, tools::ToolOutput::text("sent")), microseconds(0));
          break;
        }
        case envelope::Kind::say:
          emit(SpeechEvent{round_, s.text, c.id});
          record(i, tools::to_result(c.id, tools::ToolOutput::text("queued")), microseconds(0));
          break;
        case envelope::Kind::end_turn:
          end_turn_seen_ = true;
          record(i, tools::to_result(c.id, tools::ToolOutput::text("ok")), microseconds(0));
          break;
        case envelope::Kind::invalid:
          announce(i, find_remote(c.name) != nullptr);
          record(i, tools::error_result(c.id, s.text), microseconds(0));
          break;
        case envelope::Kind::remote: {
          {
            std::lock_guard<std::mutex> lock(mu_);
            pending_[c.id] = i;
            closed_.erase(c.id);
          }
          remote_index_[c.id] = i;
          env_current_ = i;
          const RemoteTool* rt = find_remote(c.name);
          std::weak_ptr<Run> weak = weak_from_this();
          const std::string id = c.id;
          remote_timers_[id] =
              sched_.post_after(rt->timeout.value_or(opt_.remote_timeout), [weak, id] {
                if (auto r = weak.lock()) r->step([id](Run& run) { run.on_remote_timeout(id); });
              });
          announce(i, true);
          break;
        }
        case envelope::Kind::tool: {
          env_current_ = i;
          announce(i, false);  // a cancel from its callback is absorbed by the next step
          std::weak_ptr<Run> weak = weak_from_this();
          const uint64_t batch = batch_;
          const Clock::time_point t0 = Clock::now();
          tools::CallOptions co{opt_.session, opt_.tool_timeout};
          inflight_[i] = executor_.submit(c, co, [weak, batch, i, t0](ir::ToolResultPart r) {
            auto d = std::chrono::duration_cast<microseconds>(Clock::now() - t0);
            if (auto self = weak.lock())
              self->post_step([batch, i, d, r = std::move(r)](Run& run) mutable {
                run.on_local_done(batch, i, std::move(r), d);
              });
          });
          break;
        }
      }
    }
  }

  void end_envelope_round() {
    std::vector<textformats::EnvelopeResult> out;
    bool only_pseudo = env_errors_.empty();
    for (size_t i = 0; i < calls_.size(); ++i) {
      const ir::ToolResultPart& r = *results_[i];
      out.push_back({calls_[i].id, calls_[i].name, !r.is_error, result_text(r)});
      envelope::Kind k = steps_[i].kind;
      if (k != envelope::Kind::send_chat && k != envelope::Kind::say &&
          k != envelope::Kind::end_turn)
        only_pseudo = false;
    }
    results_.clear();
    // A closing answer of messages only needs no reply; anything else is
    // kept for the model to read (on the next turn, if this one ends).
    if (!(end_turn_seen_ && only_pseudo)) {
      std::string msg = textformats::envelope_results_message(out, env_errors_);
      history_.push_back(ir::Message{ir::Role::user, {ir::TextPart{std::move(msg)}}, {}});
    }
    emit(fin_);
    if (end_turn_seen_) {
      res_.text = last_text_;
      return finish(StopReason::end_turn_tool);
    }
    if (cancel_flag()) return finish(StopReason::cancelled);
    next_round();
  }

  // ---- cancellation: one path for every phase ----

  void absorb_cancel() {
    if (cancel_seen_ || !cancel_flag()) return;
    cancel_seen_ = true;
    switch (phase_) {
      case Phase::starting:  // begin() -> next_round() stops before the first call
      case Phase::done:
        return;
      case Phase::model:  // the half turn is dropped; its late callbacks are stale
        call_.cancel();
        return finish(StopReason::cancelled);
      case Phase::tools:
        return cancel_tools();
    }
  }

  void cancel_tools() {
    std::vector<size_t> closed;
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (const auto& [id, idx] : remote_index_)
        if (pending_.erase(id)) {
          closed_[id] = Closed::cancelled;
          closed.push_back(idx);
        }
    }
    std::sort(closed.begin(), closed.end());
    for (size_t i : closed) record(i, tools::error_result(calls_[i].id, "cancelled"), since(i));
    // Calls not submitted yet never start; running ones are settled by the
    // executor at once ("tool 'x' cancelled", posted back like any result).
    for (size_t i : local_queue_) {
      const tools::Tool* t = registry_.find(calls_[i].name);
      std::string name = t ? t->wire_name() : calls_[i].name;
      record(i, tools::error_result(calls_[i].id, "tool '" + name + "' cancelled"), since(i));
    }
    local_queue_.clear();
    for (auto& [i, h] : inflight_) h.cancel();
    maybe_end_round();
  }

  void finish(StopReason reason) {
    res_.reason = reason;
    if (reason == StopReason::round_limit || reason == StopReason::cancelled ||
        reason == StopReason::client_calls)
      res_.text = last_text_;
    res_.rounds = round_;
    phase_ = Phase::done;
    call_ = provider::ProviderCall();
    for (auto& [id, t] : remote_timers_) t.cancel();
    remote_timers_.clear();
    {
      std::lock_guard<std::mutex> lock(mu_);
      finished_ = true;
    }
    emit(FinalAnswerEvent{res_.reason, res_.text, res_.rounds});
    RunCompletion done = std::move(on_done_);
    on_done_ = nullptr;
    // The caller of this step holds a reference, so dropping ours is safe here.
    std::shared_ptr<Run> keep = std::move(self_);
    if (done) done(std::move(res_), std::move(history_));
  }

  // ---- fixed at start ----
  provider::Provider& provider_;
  const tools::Registry& registry_;
  tools::Executor& executor_;
  Scheduler sched_;
  AgentOptions opt_;
  EventSink emit_;
  RunCompletion on_done_;
  bool synth_end_turn_ = false;              // the end-turn tool is offered by the run itself
  std::unique_ptr<envelope::Protocol> env_;  // TurnProtocol::envelope

  // ---- shared with other threads, under mu_ ----
  mutable std::mutex mu_;
  bool cancel_requested_ = false;
  bool finished_ = false;
  std::unordered_map<std::string, size_t> pending_;  // remote call id -> index in calls_
  std::unordered_map<std::string, Closed> closed_;   // remote calls no longer pending

  // ---- step state: only inside steps ----
  std::shared_ptr<Run> self_;  // alive until finished, whoever else holds it
  Phase phase_ = Phase::starting;
  bool cancel_seen_ = false;
  std::vector<ir::Message> history_;
  std::optional<ir::Message> user_;
  RunResult res_;
  std::string last_text_;
  int round_ = 0;
  uint64_t gen_ = 0;    // model call number: callbacks of an earlier one are stale
  uint64_t batch_ = 0;  // tool round number: local results of an earlier one are stale
  provider::ProviderCall call_;
  RoundFinishedEvent fin_;
  std::vector<ir::ToolCallPart> calls_;
  std::vector<std::optional<ir::ToolResultPart>> results_;
  std::vector<Clock::time_point> started_;
  size_t remaining_ = 0;
  size_t limit_ = 1;
  std::vector<bool> announced_;     // ToolCallEvent sent: its result gets a ToolResultEvent
  std::deque<size_t> local_queue_;  // local calls not submitted yet
  std::unordered_map<size_t, tools::CallHandle> inflight_;  // submitted, no result yet
  std::unordered_map<std::string, size_t> remote_index_;    // this round's remote calls
  std::unordered_map<std::string, TimerHandle> remote_timers_;
  std::vector<ir::ToolCallPart> client_calls_;  // this round's handed-back calls
  // envelope rounds (calls_ is in the order they run)
  static constexpr size_t kNone = static_cast<size_t>(-1);
  std::vector<envelope::Step> steps_;
  std::vector<std::string> env_errors_;  // what could not be read in the answer
  size_t env_current_ = kNone;           // the call being waited for
  bool end_turn_seen_ = false;
};

}  // namespace

std::shared_ptr<AgentRun> AgentRun::start(AgentRunParams params) {
  auto run = std::make_shared<Run>(std::move(params));
  run->launch();
  return run;
}

}  // namespace toolwire::agent
