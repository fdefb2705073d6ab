#include "gateway/routes/tool_rounds.h"

#include <algorithm>
#include <boost/asio/steady_timer.hpp>
#include <utility>
#include <variant>

#include "toolwire/agent/events.h"
#include "toolwire/tools/registry.h"

namespace toolwire::gateway::routes {
namespace {

// The executor's result for a call that ran past its deadline
// ("tool 'x' timed out after N ms"), counted apart in the metrics.
bool timed_out(const agent::ToolResultEvent& r, std::chrono::milliseconds timeout) {
  if (!r.result.is_error) return false;
  std::string text = agent::result_text(r.result);
  std::string tail = "' timed out after " + std::to_string(timeout.count()) + " ms";
  return text.rfind("tool '", 0) == 0 && text.size() > tail.size() &&
         text.compare(text.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace

agent::Scheduler strand_scheduler(std::shared_ptr<http::Exchange> ex) {
  agent::Scheduler s;
  s.post_after = [exec = ex->executor()](std::chrono::milliseconds d, std::function<void()> fn) {
    auto t = std::make_shared<boost::asio::steady_timer>(exec, d);
    t->async_wait([t, fn = std::move(fn)](boost::system::error_code ec) {
      if (!ec) fn();
    });
    return agent::TimerHandle([t] { t->cancel(); });
  };
  s.post = [ex = std::move(ex)](std::function<void()> fn) { ex->post(std::move(fn)); };
  return s;
}

// What the run sees as its model: each call goes to the host, and the
// round's answer is read here before the run gets it.
class ToolRounds::RoundProvider final : public provider::Provider {
 public:
  explicit RoundProvider(ToolRounds& rounds) : rounds_(rounds) {}
  std::string_view name() const override { return "gateway"; }
  const provider::Capabilities& capabilities() const override { return caps_; }
  provider::ProviderCall generate(ir::Request request, provider::DoneCallback done) override {
    return call(std::move(request), std::move(done));
  }
  // The host relays the stream's events to the client; the run needs only the answer.
  provider::ProviderCall stream(ir::Request request, provider::EventCallback,
                                provider::DoneCallback done) override {
    return call(std::move(request), std::move(done));
  }

 private:
  provider::ProviderCall call(ir::Request request, provider::DoneCallback done) {
    ToolRounds& r = rounds_;
    return r.host_->call_model(std::move(request),
                               [&r, done = std::move(done)](Result<provider::Generation> got) {
                                 if (got) r.on_round(*got);
                                 done(std::move(got));
                               });
  }

  ToolRounds& rounds_;
  provider::Capabilities caps_;
};

ToolRounds::ToolRounds(RouteContext& ctx, std::shared_ptr<const RouteTools> tools,
                       std::shared_ptr<const tools::Registry> registry, std::string key_scope,
                       bool stream, bool tool_comments)
    : ctx_(ctx),
      tools_(std::move(tools)),
      registry_(std::move(registry)),
      scope_(std::move(key_scope)),
      stream_(stream),
      tool_comments_(tool_comments),
      provider_(std::make_unique<RoundProvider>(*this)) {}

ToolRounds::~ToolRounds() = default;

std::optional<Error> ToolRounds::prepare(ir::Request& request) {
  if (tools_->mode == ToolMode::server && !request.tools.empty())
    return make_error(ErrorCode::invalid_argument,
                      "this route runs its own tools on the server and takes none from the "
                      "client: to bring your own tools, start `toolwire serve --tools mixed` "
                      "(the gateway's tools and yours) or `--tools passthrough` (yours only), "
                      "or set the route's `tools.mode: mixed` in the configuration",
                      "$.tools");
  for (size_t i = 0; i < request.tools.size(); ++i)
    if (is_server_tool(request.tools[i].name))
      return make_error(ErrorCode::invalid_argument,
                        "tool name '" + request.tools[i].name +
                            "' clashes with a server tool of this route (rename it, or give the "
                            "route's server tools a prefix)",
                        "$.tools[" + std::to_string(i) + "]");
  // Mixed mode: an assistant turn the client echoes back without the server
  // calls we ran in it gets them back, with their results.
  auto& msgs = request.messages;
  for (size_t i = 0; i < msgs.size(); ++i) {
    if (msgs[i].role != ir::Role::assistant) continue;
    const ir::ToolCallPart* first = nullptr;
    for (const auto& p : msgs[i].parts)
      if ((first = std::get_if<ir::ToolCallPart>(&p))) break;
    if (!first) continue;
    auto entry = ctx_.continuations.find(scoped_id(scope_, first->id));
    if (!entry) continue;
    msgs[i] = entry->assistant;
    ir::Message results{ir::Role::tool, {}, {}};
    for (const auto& r : entry->server_results) results.parts.emplace_back(r);
    msgs.insert(msgs.begin() + static_cast<ptrdiff_t>(i) + 1, std::move(results));
    ++i;
  }
  return std::nullopt;
}

void ToolRounds::start(std::shared_ptr<Host> host, ir::Request request) {
  host_ = std::move(host);
  tools::Executor& executor = ctx_.tool_executors->get(registry_);
  agent::AgentOptions opt;
  opt.max_rounds = tools_->max_rounds;
  opt.tool_timeout = tools_->tool_timeout;
  opt.max_concurrency = executor.max_concurrency();  // the route's pool is the bound
  opt.stream = stream_;
  opt.client_tools = std::move(request.tools);
  opt.hand_back_unknown_calls = true;  // a client's call, or a name the model made up
  opt.log = [&ctx = ctx_](std::string_view line) { ctx.log(line); };
  std::vector<ir::Message> history = std::move(request.messages);
  request.messages.clear();
  request.tools.clear();
  request.source_map = {};  // each round's request is built anew
  opt.base = std::move(request);
  ctx_.upstream_calls.begin();  // until the run has ended (Gateway::wait)
  run_ = agent::AgentRun::start(agent::AgentRunParams{
      .provider = *provider_,
      .registry = *registry_,
      .executor = executor,
      .scheduler = host_->scheduler(),
      .options = std::move(opt),
      .history = std::move(history),
      .user = std::nullopt,
      .on_event = [this](const agent::Event& e) { on_event(e); },
      .on_done = [this](agent::RunResult r,
                        std::vector<ir::Message> h) { on_run_done(std::move(r), std::move(h)); },
  });
}

bool ToolRounds::is_server_tool(std::string_view name) const {
  return registry_->find(name) != nullptr;
}

// Each raw extra of a round's usage or finish, at its path in the whole
// response (a placed member's key is that path), once.
void ToolRounds::note_lost(const ir::StreamExtras& extras) {
  for (const auto& x : extras.extra) {
    if (x.raw_json == "null") continue;
    std::string path = x.key.starts_with("$.") ? x.key : "$." + x.key;
    if (std::none_of(lost_.begin(), lost_.end(), [&](const Warning& w) { return w.path == path; }))
      lost_.push_back(Warning{"dropped_unknown_field", std::move(path),
                              "a tool round's field has no place in the client's one answer"});
  }
}

bool ToolRounds::relay(const ir::StreamEvent& e, ir::StreamEvent& out) {
  if (std::holds_alternative<ir::MessageStart>(e)) {
    if (sent_start_) return false;
    sent_start_ = true;
    out = e;
    return true;
  }
  if (const auto* u = std::get_if<ir::UsageEvent>(&e)) {
    round_usage_ = u->usage;  // cumulative within a round; summed at its end
    note_lost(u->extras);
    return false;
  }
  if (const auto* f = std::get_if<ir::Finish>(&e)) {
    note_lost(f->extras);
    return false;
  }
  if (const auto* s = std::get_if<ir::ToolCallStart>(&e)) {
    if (static_cast<size_t>(s->index) >= client_index_.size())
      client_index_.resize(s->index + 1, -1);
    if (is_server_tool(s->name)) {
      client_index_[s->index] = -1;
      if (tool_comments_) host_->write(": toolwire.tool_call " + s->name + " " + s->id + "\n\n");
      return false;
    }
    client_index_[s->index] = next_client_index_++;
  }
  int index = -1;
  if (const auto* d = std::get_if<ir::ToolCallStart>(&e)) index = d->index;
  if (const auto* d = std::get_if<ir::ToolCallDelta>(&e)) index = d->index;
  if (const auto* d = std::get_if<ir::ToolCallEnd>(&e)) index = d->index;
  if (index >= 0 &&
      (static_cast<size_t>(index) >= client_index_.size() || client_index_[index] < 0))
    return false;
  out = e;
  // The client's numbering of its calls across rounds.
  std::visit(
      [&](auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, ir::ToolCallStart> ||
                      std::is_same_v<T, ir::ToolCallDelta> || std::is_same_v<T, ir::ToolCallEnd>)
          v.index = client_index_[v.index];
      },
      out);
  return true;
}

void ToolRounds::on_round(provider::Generation& g) {
  const ir::Response& r = g.response;
  ir::add_usage(usage_total_, stream_ ? (r.usage.empty() ? round_usage_ : r.usage) : r.usage);
  round_usage_ = {};
  client_index_.clear();
  if (first_response_.id.empty() && first_response_.model.empty()) {
    first_response_.id = r.id;
    first_response_.model = r.model;
    first_response_.created = r.created;
  }
  if (!stream_)
    for (const auto& p : r.parts) {
      const auto* c = std::get_if<ir::ToolCallPart>(&p);
      if (!c || !is_server_tool(c->name)) shown_parts_.push_back(p);
    }
  last_finish_ = r.finish;
}

void ToolRounds::on_event(const agent::Event& e) {
  if (stopped_) return;
  if (const auto* c = std::get_if<agent::ToolCallEvent>(&e)) {
    // MCP servers' tools are registered as <prefix>__<tool> (docs/mcp.md).
    if (trace && is_server_tool(c->call.name))
      trace->tool_call(*c, c->call.name.find("__") != std::string::npos ? "mcp" : "server");
    if (tool_comments_ && stream_)
      host_->write(": toolwire.tool_run " + c->call.name + " " + c->call.id + "\n\n");
  } else if (const auto* r = std::get_if<agent::ToolResultEvent>(&e)) {
    if (trace) trace->tool_result(*r, timed_out(*r, tools_->tool_timeout));
    ctx_.metrics.tool_call(r->tool_name, timed_out(*r, tools_->tool_timeout) ? "timeout"
                                         : r->result.is_error                ? "error"
                                                                             : "ok");
    if (tool_comments_ && stream_)
      host_->write(": toolwire.tool_result " + r->result.call_id +
                   (r->result.is_error ? " error" : " ok") + "\n\n");
  }
}

void ToolRounds::on_run_done(agent::RunResult result, std::vector<ir::Message> history) {
  // The host may hold the last reference to these rounds: released last.
  std::shared_ptr<Host> host = std::move(host_);
  run_.reset();
  ctx_.upstream_calls.end();
  if (stopped_) return;
  switch (result.reason) {
    case agent::StopReason::final_text:
      return finish(*host, false);
    case agent::StopReason::client_calls:
      // The turn's server calls ran: they and their results wait for the
      // client's next request, under its calls' ids, for this key only.
      if (history.size() >= 2 && history.back().role == ir::Role::tool) {
        ContinuationStore::Entry entry{history[history.size() - 2], {}};
        for (auto& p : history.back().parts)
          if (auto* r = std::get_if<ir::ToolResultPart>(&p))
            entry.server_results.push_back(std::move(*r));
        std::vector<std::string> ids;
        for (const auto& c : result.client_calls) ids.push_back(scoped_id(scope_, c.id));
        ctx_.continuations.put(ids, std::move(entry));
      }
      return finish(*host, true);
    case agent::StopReason::round_limit:
      ctx_.log("route tool loop stopped after " + std::to_string(result.rounds) +
               " model calls (max_rounds)");
      last_finish_ = ir::FinishReason{ir::FinishReason::Kind::length, "max_tool_rounds"};
      return finish(*host, false);
    case agent::StopReason::error:
      return host->fail(result.error ? *result.error
                                     : make_error(ErrorCode::internal, "the tool loop failed"));
    case agent::StopReason::end_turn_tool:  // not configured
    case agent::StopReason::cancelled:      // only through stop()
      return;
  }
}

void ToolRounds::finish(Host& host, bool client_calls) {
  if (client_calls)
    last_finish_ = ir::FinishReason{ir::FinishReason::Kind::tool_calls, "tool_calls"};
  if (stream_) return host.finish_stream(usage_total_, last_finish_);
  ir::Response resp;
  resp.id = first_response_.id;
  resp.model = first_response_.model;
  resp.created = first_response_.created;
  resp.parts = std::move(shown_parts_);
  resp.finish = last_finish_;
  resp.usage = usage_total_;
  host.finish_whole(std::move(resp));
}

void ToolRounds::stop() {
  stopped_ = true;
  if (run_) run_->cancel();
}

}  // namespace toolwire::gateway::routes
