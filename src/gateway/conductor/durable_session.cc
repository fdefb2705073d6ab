// A session's durable steps in Redis, and a session taken over from another
// replica (docs/deploy.md#conductor-sessions). Everything on the session's
// strand; Redis answers are posted back to it.
//
// Durable steps: session.start; a turn's input; a round's tool calls
// (before the device sees them); each tool result; the turn's end. A
// takeover goes on from the last of them: a model call in flight is made
// again, a recorded result is never asked for again.
#include <boost/asio/post.hpp>

#include "toolwire/agent/history.h"
#include "toolwire/telemetry/trace.h"

#include "gateway/conductor/conductor.h"
#include "gateway/conductor/connection.h"
#include "gateway/conductor/session.h"
#include "gateway/routes/context.h"
#include "gateway/shared_state/shared_state.h"

namespace toolwire::gateway::conductor {

namespace asio = boost::asio;
using json = nlohmann::json;

namespace {

int64_t unix_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

void Session::make_durable(std::shared_ptr<shared_state::SharedState> shared) {
  shared_ = std::move(shared);
  durable_ = shared_ != nullptr;
  if (!durable_) return;
  checkpoint(false);
  schedule_renewal();
}

SessionRecord Session::record() const {
  SessionRecord r;
  r.start = setup_.start;
  r.key = key_id(setup_.owner);
  r.token_hash = token_hash(token_);
  r.seq = seq_;
  r.replay = replay_.entries();
  r.history = history_;
  r.in_turn = in_turn_;
  r.resumable = setup_.turn_protocol == agent::TurnProtocol::native;
  if (in_turn_) {
    r.turn = turn_msgs_;
    r.rounds = turn_rounds_;
    r.text = call_text_;
    r.calls = calls_;
    r.remote = call_remote_;
    r.deadlines = call_deadline_;
    r.results = results_;
  }
  return r;
}

// The session's state to Redis. A write Redis does not take leaves the
// local session as it was (logged, counted): only a takeover would miss it.
void Session::checkpoint(bool release_held) {
  if (release_held) hold_queued_ = false;
  if (!shared_ || !durable_) {
    if (release_held) flush_held();
    return;
  }
  auto ttl = conductor_.options().resume_grace + 2 * shared_->options().conductor_lease;
  shared_->save_session(
      id_, encode_record(record()), ttl,
      [weak = weak_from_this(), strand = strand_, release_held](Result<long long> n) {
        asio::post(strand, [weak, n = std::move(n), release_held]() mutable {
          if (auto s = weak.lock()) s->saved(std::move(n), release_held);
        });
      });
}

void Session::saved(Result<long long> n, bool release_held) {
  if (!n) {
    conductor_.context().log("conductor " + id_ + ": a step was not written to Redis (" +
                             n.error().message +
                             "); a takeover now would resume from an earlier one");
  } else if (*n == 0) {
    // Another replica took the session over (this one was silent too long).
    conductor_.context().log("conductor " + id_ + ": another replica holds the session now");
    return expire(End::moved);
  }
  if (release_held) flush_held();
}

void Session::flush_held() {
  holding_ = false;
  auto held = std::move(held_);
  held_.clear();
  if (expired_ || !conn_) return;  // kept in the replay buffer for a resume
  for (auto& [seq, frame] : held) conn_->send(std::move(frame));
}

void Session::schedule_renewal() {
  if (!shared_ || expired_) return;
  lease_.expires_after(
      std::max(std::chrono::milliseconds(50), shared_->options().conductor_lease / 3));
  lease_.async_wait([weak = weak_from_this()](boost::system::error_code ec) {
    auto s = weak.lock();
    if (ec || !s || s->expired_ || !s->durable_) return;
    auto ttl = s->conductor_.options().resume_grace + 2 * s->shared_->options().conductor_lease;
    s->shared_->renew_session(s->id_, ttl, [weak, strand = s->strand_](Result<long long> n) {
      asio::post(strand, [weak, n = std::move(n)]() mutable {
        if (auto s = weak.lock()) s->renewed(std::move(n));
      });
    });
    s->schedule_renewal();
  });
}

void Session::renewed(Result<long long> n) {
  if (expired_ || !durable_ || !n) return;  // Redis down: the next renewal tries again
  switch (*n) {
    case -1:  // Redis lost the session (restarted empty): written again, whole
      conductor_.context().log("conductor " + id_ + ": not in Redis any more; written again");
      return checkpoint(false);
    case 0:
      return expire(End::moved);
    case 2:  // another replica has the device: the turn moves there, from its last durable step
      conductor_.context().log("conductor " + id_ + ": handed over to another replica");
      shared_->release_session(id_, false);
      durable_ = false;
      return expire(End::moved);
    default:
      return;
  }
}

// A round whose calls all have results: its two messages join the turn.
void Session::close_round() {
  ir::Message said{ir::Role::assistant, {}, {}};
  if (!call_text_.empty()) said.parts.emplace_back(ir::TextPart{call_text_});
  for (const auto& c : calls_) said.parts.emplace_back(c);
  ir::Message answers{ir::Role::tool, {}, {}};
  for (const auto& c : calls_)
    for (const auto& r : results_)
      if (r.call_id == c.id) {
        answers.parts.emplace_back(r);
        break;
      }
  turn_msgs_.push_back(std::move(said));
  if (!answers.parts.empty()) turn_msgs_.push_back(std::move(answers));
  calls_.clear();
  call_remote_.clear();
  call_deadline_.clear();
  results_.clear();
  call_text_.clear();
}

void Session::adopt(std::shared_ptr<shared_state::SharedState> shared, SessionRecord rec,
                    std::shared_ptr<Connection> conn, uint64_t replay_after) {
  shared_ = std::move(shared);
  history_ = std::move(rec.history);
  // Numbers the device may have seen from the old replica are not given again.
  seq_ = std::max(rec.seq, replay_after);
  for (auto& [seq, frame] : rec.replay) replay_.add(seq, std::move(frame));
  durable_ = true;
  schedule_renewal();
  attach(std::move(conn), replay_after);
  if (!rec.in_turn) return;
  if (!rec.resumable) {
    reply_error("turn_interrupted", "the replica running this turn stopped; send the request again",
                true, "");
    checkpoint(false);
    return emit("state", {{"state", "idle"}});
  }
  in_turn_ = true;
  turn_msgs_ = std::move(rec.turn);
  turn_rounds_ = rec.rounds;
  if (rec.calls.empty()) return resume_run();  // the model call in flight: made again
  call_text_ = std::move(rec.text);
  calls_ = std::move(rec.calls);
  call_remote_ = std::move(rec.remote);
  call_deadline_ = std::move(rec.deadlines);
  results_ = std::move(rec.results);
  bool wrote = false;
  for (size_t i = 0; i < calls_.size(); ++i) {
    const std::string& id = calls_[i].id;
    bool done = false;
    for (const auto& r : results_) done = done || r.call_id == id;
    if (done) continue;
    if (!call_remote_[i]) {  // a server tool that may have run: never run twice
      results_.push_back(tools::error_result(
          id, "tool '" + calls_[i].name + "' was interrupted: the replica running it stopped"));
      wrote = true;
      continue;
    }
    auto timer = std::make_shared<asio::steady_timer>(strand_);
    timer->expires_after(
        std::chrono::milliseconds(std::max<int64_t>(0, call_deadline_[i] - unix_ms())));
    timer->async_wait(
        [weak = weak_from_this(), id, name = calls_[i].name](boost::system::error_code ec) {
          auto s = weak.lock();
          if (ec || !s || !s->adopted_.count(id)) return;
          s->adopted_result(
              id, tools::error_result(id, "tool_result_timeout: no result from the remote tool '" +
                                              name + "' before its deadline"));
        });
    adopted_[id] = std::move(timer);
    // GET /v1/conductor/sessions lists it as pending here too (the device's
    // name for it; its start on the old replica is not kept: now).
    std::string name = calls_[i].name;
    for (size_t t = 0; t < setup_.device_tools.size(); ++t)
      if (setup_.device_tools[t].definition.name == name) name = setup_.device_names[t];
    std::lock_guard lock(view_mu_);
    view_pending_.push_back(
        {id, std::move(name), telemetry::unix_micros(), call_deadline_[i] * 1000});
  }
  emit("state", {{"state", "thinking"}});
  if (wrote) checkpoint(false);
  if (adopted_.empty()) finish_adopted_round();
}

void Session::adopted_result(const std::string& call_id, ir::ToolResultPart r) {
  auto it = adopted_.find(call_id);
  if (it == adopted_.end()) return;
  it->second->cancel();
  adopted_.erase(it);
  {
    std::lock_guard lock(view_mu_);
    std::erase_if(view_pending_, [&](const PendingCall& p) { return p.call_id == call_id; });
  }
  results_.push_back(std::move(r));
  checkpoint(false);
  if (adopted_.empty()) finish_adopted_round();
}

void Session::finish_adopted_round() {
  close_round();
  ++turn_rounds_;
  resume_run();
}

// session.cancel during a taken-over round: its calls end "cancelled", and
// so does the turn (no model call follows).
void Session::cancel_adopted(const std::vector<std::string>& ids) {
  for (const auto& id : ids) {
    adopted_[id]->cancel();
    adopted_.erase(id);
    results_.push_back(tools::error_result(id, "cancelled"));
  }
  {
    std::lock_guard lock(view_mu_);
    view_pending_.clear();
  }
  close_round();
  for (auto& m : turn_msgs_) history_.push_back(std::move(m));
  size_t start = agent::window_start(history_, setup_.history_turns);
  history_.erase(history_.begin(), history_.begin() + static_cast<std::ptrdiff_t>(start));
  in_turn_ = false;
  turn_msgs_.clear();
  checkpoint(false);
  emit("state", {{"state", "idle"}});
}

void Session::resume_run() {
  std::vector<ir::Message> h = history_;
  for (const auto& m : turn_msgs_) h.push_back(m);
  run_turn(std::move(h), std::nullopt, std::max(1, setup_.max_rounds - turn_rounds_));
}

}  // namespace toolwire::gateway::conductor
