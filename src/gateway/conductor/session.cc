// A conductor session: turns as AgentRuns on the session's strand, events to
// the device (and the replay buffer), results from it into the run.
#include "gateway/conductor/session.h"

#include <boost/asio/post.hpp>

#include "gateway/conductor/conductor.h"
#include "gateway/conductor/connection.h"
#include "gateway/routes/context.h"
#include "gateway/shared_state/shared_state.h"
#include "toolwire/agent/history.h"
#include "toolwire/telemetry/trace.h"

namespace toolwire::gateway::conductor {

namespace asio = boost::asio;
using json = nlohmann::json;

Session::Session(Conductor& conductor, http::Strand strand, std::string id, std::string token,
                 SessionSetup setup)
    : conductor_(conductor),
      strand_(std::move(strand)),
      id_(std::move(id)),
      token_(std::move(token)),
      setup_(std::move(setup)),
      tap_(*setup_.provider, conductor),
      bucket_(conductor.options().frames_per_second, conductor.options().frame_burst),
      grace_(strand_),
      replay_(conductor.options().replay_events, conductor.options().replay_bytes),
      view_created_us_(telemetry::unix_micros()),
      view_active_us_(view_created_us_),
      lease_(strand_) {}

Session::~Session() = default;

// Runs on the session's strand (AgentRun calls its provider from its steps).
void ProviderTap::note() {
  if (result_at == std::chrono::steady_clock::time_point{}) return;
  conductor_.note_result_latency(std::chrono::steady_clock::now() - result_at);
  result_at = {};
}

// A model-call span around `done` (the call's end, on the session's strand).
provider::DoneCallback ProviderTap::traced(const ir::Request& r, bool stream,
                                           provider::DoneCallback done) {
  if (!trace) return done;
  size_t span = trace->model_begin(r.model, upstream_name, inner_.name(), "", stream);
  return [t = trace, span, upstream = upstream_name, provider = std::string(inner_.name()),
          done = std::move(done)](Result<provider::Generation> g) {
    t->model_end(span, upstream, provider, 1, g, {});
    done(std::move(g));
  };
}

provider::ProviderCall ProviderTap::generate(ir::Request r, provider::DoneCallback done) {
  note();
  auto d = traced(r, false, std::move(done));
  return inner_.generate(std::move(r), std::move(d));
}

provider::ProviderCall ProviderTap::stream(ir::Request r, provider::EventCallback on_event,
                                           provider::DoneCallback done) {
  note();
  auto d = traced(r, true, std::move(done));
  return inner_.stream(std::move(r), std::move(on_event), std::move(d));
}

agent::Scheduler Session::scheduler() {
  agent::Scheduler s;
  std::weak_ptr<Session> weak = weak_from_this();
  auto strand = strand_;
  s.post = [strand](std::function<void()> f) { asio::post(strand, std::move(f)); };
  s.post_after = [strand](std::chrono::milliseconds d, std::function<void()> f) {
    auto t = std::make_shared<asio::steady_timer>(strand, d);
    t->async_wait([t, f = std::move(f)](boost::system::error_code ec) {
      if (!ec) f();
    });
    return agent::TimerHandle([t] { t->cancel(); });
  };
  return s;
}

// Every event of the session's stream gets the next sequence number; the
// ones that belong to the conversation are kept for a resume.
void Session::emit(std::string_view type, json payload, bool keep) {
  if (type == "state") note_state(payload["state"].get<std::string>());
  uint64_t seq = ++seq_;
  std::string frame = make_event(id_ + ":" + std::to_string(seq), type, id_, payload);
  if (holding_) {  // behind a round Redis does not have yet: in order, after it
    if (keep) replay_.add(seq, frame);
    held_.emplace_back(seq, std::move(frame));
  } else if (conn_) {
    if (keep) replay_.add(seq, frame);
    conn_->send(std::move(frame));
  } else if (keep) {
    replay_.add(seq, std::move(frame));
  }
}

void Session::note_state(std::string_view state) {
  std::lock_guard lock(view_mu_);
  view_state_ = state;
  view_active_us_ = telemetry::unix_micros();
}

json Session::describe() const {
  std::lock_guard lock(view_mu_);
  json pending = json::array();
  for (const auto& c : view_pending_)
    pending.push_back({{"call_id", c.call_id},
                       {"name", c.name},
                       {"since_us", c.since_us},
                       {"deadline_us", c.deadline_us}});
  json tools = json::array();
  for (const auto& n : setup_.device_names) tools.push_back(n);  // fixed at start
  return {{"session_id", id_},
          {"key", setup_.owner ? setup_.owner->config().name : ""},
          {"model", setup_.model},
          {"upstream", setup_.upstream_name},
          {"state", view_state_},
          {"connected", view_attached_},
          {"turns", view_turns_},
          {"created_us", view_created_us_},
          {"active_us", view_active_us_},
          {"trace_id", view_trace_id_},
          {"device_tools", std::move(tools)},
          {"pending_calls", std::move(pending)}};
}

void Session::reply_error(std::string_view code, std::string message, bool retryable,
                          const std::string& ref) {
  json p = {{"code", code}, {"message", std::move(message)}, {"retryable", retryable}};
  if (!ref.empty()) p["ref"] = ref;
  emit("error", std::move(p), false);
}

void Session::attach(std::shared_ptr<Connection> conn, std::optional<uint64_t> replay_after) {
  if (expired_) {
    conn->send_error("session_expired", "session " + id_ + " has ended", false, "", id_);
    return;
  }
  if (conn_ && conn_ != conn) conn_->close(4000, "session resumed on another connection");
  conn_ = std::move(conn);
  grace_.cancel();
  {
    std::lock_guard lock(view_mu_);
    view_attached_ = true;
  }
  json tools = json::array();
  for (const auto& n : setup_.device_names) tools.push_back(n);
  emit("session.ready",
       {{"sessionId", id_},
        {"resumeToken", token_},
        {"tools", std::move(tools)},
        {"resumed", replay_after.has_value()}},
       false);
  if (!replay_after) return;
  // Held frames go out once Redis has their round (flush_held).
  auto r = replay_.after(*replay_after, held_.empty() ? UINT64_MAX : held_.front().first);
  if (!r.complete)
    reply_error("replay_gap",
                "some events after " + std::to_string(*replay_after) +
                    " are no longer kept; the replay starts at the oldest kept one",
                false, "");
  for (auto& f : r.frames) conn_->send(std::move(f));
}

void Session::detach(const Connection* conn) {
  if (conn_.get() != conn) return;
  conn_.reset();
  {
    std::lock_guard lock(view_mu_);
    view_attached_ = false;
  }
  if (expired_) return;
  grace_.expires_after(conductor_.options().resume_grace);
  grace_.async_wait([self = shared_from_this()](boost::system::error_code ec) {
    if (ec || self->conn_) return;
    self->expire();
  });
}

void Session::expire(End how) {
  if (expired_) return;
  expired_ = true;
  grace_.cancel();
  lease_.cancel();
  adopted_.clear();  // their timers go with them
  queued_.clear();
  if (run_) run_->cancel();
  if (shared_ && durable_ && how != End::moved) shared_->release_session(id_, how == End::ended);
  durable_ = false;
  if (conn_) {
    if (how == End::moved)
      conn_->close(4000, "session resumed on another replica");
    else
      conn_->close(1001, "session ended");
    conn_.reset();
  }
  held_.clear();
  conductor_.forget_session(id_);
}

void Session::on_frame(const Connection* conn, Frame f) {
  if (conn_.get() != conn || expired_) return;  // a replaced connection's last frames
  switch (f.type) {
    case ClientType::transcript_final: {
      std::string text = f.payload["text"].get<std::string>();
      if (!run_ && adopted_.empty()) return start_turn(std::move(text));
      if (queued_.size() >= conductor_.options().max_queued_turns)
        return reply_error("queue_full",
                           "a turn is running and " + std::to_string(queued_.size()) +
                               " more are queued; send session.cancel to interrupt",
                           true, f.id);
      queued_.push_back(std::move(text));
      return;
    }
    case ClientType::session_cancel:
      // Barge-in: the running turn stops now; what was queued behind it is
      // stale too. The next transcript.final starts a fresh turn.
      queued_.clear();
      if (run_) run_->cancel();
      if (!adopted_.empty()) {  // a taken-over round: its pending calls are cancelled
        std::vector<std::string> ids;
        for (const auto& [id, t] : adopted_) ids.push_back(id);
        cancel_adopted(ids);
      }
      return;
    case ClientType::tool_result:
      return on_tool_result(f);
    case ClientType::session_start:
      return reply_error("session_active", "this connection already carries session " + id_, false,
                         f.id);
    case ClientType::ping:
      return;  // answered by the connection
  }
}

void Session::on_tool_result(const Frame& f) {
  std::string call_id = f.payload["callId"].get<std::string>();
  if (ui_call_ids_.erase(call_id)) return;  // fire-and-forget UI calls
  tools::ToolOutput out;
  if (auto e = f.payload.find("error"); e != f.payload.end()) {
    out = tools::ToolOutput::error(e->get<std::string>());
  } else if (auto r = f.payload.find("result"); r != f.payload.end()) {
    out = r->is_string() ? tools::ToolOutput::text(r->get<std::string>())
                         : tools::ToolOutput::json(*r);
  } else {
    out = tools::ToolOutput::text("");
  }
  if (!adopted_.empty() || (!run_ && in_turn_)) {  // a taken-over round (adopt)
    if (adopted_.count(call_id)) {
      tap_.result_at = f.received;
      return adopted_result(call_id, tools::to_result(call_id, std::move(out)));
    }
    for (const auto& r : results_)
      if (r.call_id == call_id)
        return reply_error("duplicate_result",
                           "duplicate result for call '" + call_id + "' ignored", false, f.id);
    return reply_error("unknown_call", "result for unknown call '" + call_id + "' ignored", false,
                       f.id);
  }
  auto target = run_ ? run_ : last_run_;
  if (!target)
    return reply_error("unknown_call", "result for unknown call '" + call_id + "' ignored", false,
                       f.id);
  Status st = target->submit_result(call_id, std::move(out));
  if (st.ok()) {
    tap_.result_at = f.received;
    return;
  }
  const std::string& why = st.error().message;
  std::string_view code = why.find("duplicate") != std::string::npos ? "duplicate_result"
                          : why.find("late") != std::string::npos    ? "late_result"
                                                                     : "unknown_call";
  reply_error(code, why, false, f.id);
}

void Session::start_turn(std::string text) {
  emit("state", {{"state", "thinking"}});
  ir::Message user;
  user.role = ir::Role::user;
  user.parts.emplace_back(ir::TextPart{std::move(text)});
  in_turn_ = true;
  turn_msgs_ = {user};
  turn_rounds_ = 0;
  calls_.clear();
  results_.clear();
  checkpoint(false);  // durable: the turn's input (a takeover makes its model call)
  run_turn(history_, std::move(user), setup_.max_rounds);
}

// `user` none: `history` ends with the turn's input (a taken-over turn).
void Session::run_turn(std::vector<ir::Message> history, std::optional<ir::Message> user,
                       int max_rounds) {
  round_text_.clear();
  speaking_ = false;
  agent::AgentOptions o;
  o.max_rounds = max_rounds;
  o.remote_timeout = setup_.tool_timeout;
  o.max_turns = setup_.history_turns;
  o.turn_protocol = setup_.turn_protocol;
  o.base.model = setup_.model;
  if (!setup_.system.empty()) o.base.system.push_back({setup_.system, false});
  o.remote_tools = setup_.device_tools;
  auto* ctx = &conductor_.context();
  std::string sid = id_;
  o.log = [ctx, sid](std::string_view line) {
    ctx->log("conductor " + sid + ": " + std::string(line));
  };
  std::weak_ptr<Session> weak = weak_from_this();
  Conductor* conductor = &conductor_;  // outlives every run (Gateway::wait)
  conductor->run_started();
  if (conductor_.context().traces || conductor_.context().otlp) {
    tap_.trace = std::make_shared<traces::RequestTrace>(
        conductor_.context().traces, conductor_.context().otlp, "conductor_turn", "conductor",
        setup_.owner ? setup_.owner->config().name : "", setup_.capture_content);
    tap_.trace->trace().model = setup_.model;
    tap_.upstream_name = setup_.upstream_name;
    std::lock_guard lock(view_mu_);
    view_trace_id_ = tap_.trace->trace().trace_id;
  }
  run_ = agent::AgentRun::start({
      .provider = tap_,
      .registry = *setup_.registry,
      .executor = *setup_.executor,
      .scheduler = scheduler(),
      .options = std::move(o),
      .history = std::move(history),
      .user = std::move(user),
      .on_event =
          [weak](const agent::Event& e) {
            if (auto s = weak.lock()) s->on_agent_event(e);
          },
      .on_done =
          [weak, conductor](agent::RunResult r, std::vector<ir::Message> h) {
            if (auto s = weak.lock()) s->turn_done(std::move(r), std::move(h));
            conductor->run_finished();
          },
  });
}

void Session::on_agent_event(const agent::Event& e) {
  if (auto* d = std::get_if<agent::TextDeltaEvent>(&e)) {
    if (!speaking_) {
      speaking_ = true;
      emit("state", {{"state", "speaking"}});
    }
    round_text_ += d->text;
    if (setup_.delta)
      emit("assistant.text.delta", {{"text", d->text}});
    else
      emit("assistant.speech.partial", {{"text", round_text_}});
  } else if (auto* c = std::get_if<agent::ToolCallEvent>(&e)) {
    if (tap_.trace)
      tap_.trace->tool_call(*c, c->remote                                      ? "device"
                                : c->call.name.find("__") != std::string::npos ? "mcp"
                                                                               : "server");
    if (setup_.turn_protocol == agent::TurnProtocol::native) {
      // The round, durable before the device sees any of its calls.
      if (calls_.empty()) call_text_ = round_text_;
      calls_.push_back(c->call);
      call_remote_.push_back(c->remote);
      call_deadline_.push_back(
          std::chrono::duration_cast<std::chrono::milliseconds>(
              (std::chrono::system_clock::now() + setup_.tool_timeout).time_since_epoch())
              .count());
      if (shared_ && durable_ && !hold_queued_) {
        hold_queued_ = holding_ = true;
        asio::post(strand_, [weak = weak_from_this()] {
          if (auto s = weak.lock()) s->checkpoint(true);
        });
      }
    }
    if (!c->remote) return;  // a server-side tool: the device does not see it
    if (speaking_) {
      speaking_ = false;
      emit("state", {{"state", "thinking"}});
    }
    // The device gets the name it declared, not the wire name the model used.
    std::string name = c->call.name;
    for (size_t i = 0; i < setup_.device_tools.size(); ++i)
      if (setup_.device_tools[i].definition.name == name) name = setup_.device_names[i];
    {
      std::lock_guard lock(view_mu_);
      const int64_t now = telemetry::unix_micros();
      view_pending_.push_back(
          {c->call.id, name, now,
           now +
               std::chrono::duration_cast<std::chrono::microseconds>(setup_.tool_timeout).count()});
    }
    emit("tool.call", {{"callId", c->call.id}, {"name", name}, {"arguments", c->call.arguments}});
  } else if (auto* r = std::get_if<agent::ToolResultEvent>(&e)) {
    {
      std::lock_guard lock(view_mu_);
      std::erase_if(view_pending_,
                    [&](const PendingCall& p) { return p.call_id == r->result.call_id; });
    }
    if (setup_.turn_protocol == agent::TurnProtocol::native && !calls_.empty()) {
      results_.push_back(r->result);
      if (!hold_queued_) checkpoint(false);  // else the round's write has it
    }
    if (tap_.trace)
      tap_.trace->tool_result(*r, r->result.is_error && agent::result_text(r->result).find(
                                                            "timed out") != std::string::npos);
  } else if (auto* say = std::get_if<agent::SpeechEvent>(&e)) {
    emit("assistant.say", {{"text", say->text}});  // the envelope protocol's `say`
  } else if (std::get_if<agent::RoundFinishedEvent>(&e)) {
    if (!calls_.empty()) close_round();
    ++turn_rounds_;
    round_text_.clear();
  } else if (auto* err = std::get_if<agent::ErrorEvent>(&e)) {
    bool retryable = err->error.code == ErrorCode::unavailable ||
                     err->error.code == ErrorCode::resource_exhausted ||
                     err->error.code == ErrorCode::deadline_exceeded;
    emit("error", {{"code", "upstream_error"},
                   {"message", err->error.to_string()},
                   {"retryable", retryable}});
  } else if (auto* fin = std::get_if<agent::FinalAnswerEvent>(&e)) {
    if (fin->reason == agent::StopReason::cancelled || fin->reason == agent::StopReason::error)
      return;
    emit("assistant.speech.final", {{"text", fin->text}});
    if (setup_.ui_calls) send_ui_calls(fin->text);
  }
}

// What some voice devices expect after an answer; their results are
// swallowed (ui_call_ids_) and never reach the model.
void Session::send_ui_calls(const std::string& text) {
  auto call = [&](std::string_view name, json args) {
    std::string id = "ui_" + std::to_string(++ui_seq_);
    ui_call_ids_.insert(id);
    if (ui_call_ids_.size() > 64) ui_call_ids_.clear();  // a device that never answers them
    emit("tool.call", {{"callId", id}, {"name", name}, {"arguments", args.dump()}});
  };
  call("convo.appendMessage", {{"role", "assistant"}, {"text", text}, {"isPartial", false}});
  call("convo.setState", {{"state", "speaking"}});
  call("tts.speak", {{"text", text}});
  call("convo.setState", {{"state", "idle"}});
}

void Session::turn_done(agent::RunResult result, std::vector<ir::Message> history) {
  if (auto t = std::move(tap_.trace)) {
    const bool failed = result.reason == agent::StopReason::error;
    t->finish(failed ? 500 : result.reason == agent::StopReason::cancelled ? 499 : 200);
  }
  {
    std::lock_guard lock(view_mu_);
    view_pending_.clear();  // a cancelled turn's calls are no longer awaited
    view_trace_id_.clear();
    ++view_turns_;
  }
  history_ = std::move(history);
  // Only the window is ever sent; the rest would only cost memory.
  size_t start = agent::window_start(history_, setup_.history_turns);
  history_.erase(history_.begin(), history_.begin() + static_cast<std::ptrdiff_t>(start));
  last_run_ = std::move(run_);
  speaking_ = false;
  in_turn_ = false;
  turn_msgs_.clear();
  calls_.clear();
  call_remote_.clear();
  call_deadline_.clear();
  results_.clear();
  if (!expired_) checkpoint(false);  // durable: the turn is in the history
  emit("state", {{"state", "idle"}});
  if (expired_ || queued_.empty()) return;
  std::string next = std::move(queued_.front());
  queued_.pop_front();
  start_turn(std::move(next));
}

}  // namespace toolwire::gateway::conductor
