// The conductor's shared part: the upgrade, session.start (new or resumed
// sessions), and the maps of sessions and connections.
#include "gateway/conductor/conductor.h"

#include "toolwire/dialects/ingress.h"

#include <openssl/crypto.h>

#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>

#include "gateway/auth/random_hex.h"
#include "gateway/conductor/connection.h"
#include "gateway/conductor/session.h"
#include "gateway/http/origin.h"
#include "gateway/routes/context.h"
#include "toolwire/tools/names.h"
#include "toolwire/tools/schema.h"

namespace toolwire::gateway::conductor {

namespace asio = boost::asio;
namespace bhttp = boost::beast::http;
using json = nlohmann::json;

namespace {

bool same_secret(std::string_view a, std::string_view b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

bool contains_token(std::string_view header, std::string_view token) {
  std::string h(header);
  for (auto& c : h) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return h.find(token) != std::string::npos;
}

void refuse(http::Exchange& ex, int status, std::string_view code, std::string message,
            const http::Headers& headers = {}) {
  json body = {{"error", {{"code", code}, {"message", std::move(message)}}}};
  ex.respond(status, "application/json", body.dump(), headers);
}

// lastEventId: an event id as sent ("SESSION:SEQ") or the bare sequence number.
std::optional<uint64_t> event_seq(const json& v) {
  if (v.is_number_unsigned() || v.is_number_integer())
    return v.get<int64_t>() < 0 ? 0 : v.get<uint64_t>();
  if (!v.is_string()) return std::nullopt;
  std::string s = v.get<std::string>();
  s = s.substr(s.rfind(':') == std::string::npos ? 0 : s.rfind(':') + 1);
  if (s.empty() || s.size() > 19 || s.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  return std::stoull(s);
}

}  // namespace

Conductor::Conductor(routes::RouteContext& ctx) : ctx_(ctx) {}

Conductor::~Conductor() {
  // Sessions (and their runs) go before the executors their runs use.
  std::unordered_map<std::string, std::shared_ptr<Session>> sessions;
  {
    std::lock_guard lock(mu_);
    sessions.swap(sessions_);
  }
  sessions.clear();
}

const ConductorOptions& Conductor::options() const { return ctx_.options.conductor; }

size_t Conductor::session_count() const {
  std::lock_guard lock(mu_);
  return sessions_.size();
}

std::string Conductor::sessions_json() const {
  std::vector<std::shared_ptr<Session>> live;
  {
    std::lock_guard lock(mu_);  // only the copy under the map's lock
    live.reserve(sessions_.size());
    for (const auto& [id, s] : sessions_) live.push_back(s);
  }
  json list = json::array();
  for (const auto& s : live) list.push_back(s->describe());
  std::sort(list.begin(), list.end(), [](const json& a, const json& b) {
    return a["created_us"].get<int64_t>() < b["created_us"].get<int64_t>();
  });
  return json{{"sessions", std::move(list)}}.dump(-1, ' ', false, json::error_handler_t::replace);
}

void Conductor::handle(std::shared_ptr<http::Exchange> ex, http::Request&& req) {
  const auto& o = options();
  if (!o.enabled) return refuse(*ex, 404, "not_found", "the conductor is disabled on this gateway");
  if (!contains_token(req.header("upgrade"), "websocket") ||
      !contains_token(req.header("connection"), "upgrade"))
    return refuse(*ex, 426, "upgrade_required",
                  "GET /v1/conductor is a WebSocket endpoint (send Connection: Upgrade, "
                  "Upgrade: websocket)",
                  {{"upgrade", "websocket"}});
  std::string_view origin = req.header("origin");
  if (!http::origin_allowed(origin, o.allowed_origins))
    return refuse(*ex, 403, "forbidden_origin",
                  "origin '" + std::string(origin) +
                      "' is not allowed to open the conductor (allow it with "
                      "--conductor-origin or conductor.allowed_origins)");
  GatewayKey* key = nullptr;
  if (ctx_.keys && !ctx_.keys->empty()) {
    std::string_view presented =
        dialects::presented_key([&](std::string_view name) { return req.header(name); });
    if (!presented.empty()) {  // else it must come in session.start
      key = ctx_.keys->authenticate(presented);
      if (!key) return refuse(*ex, 401, "unauthenticated", "invalid gateway key");
    }
  }
  bhttp::request<bhttp::string_body> breq;
  breq.method(req.method);
  breq.target(req.target);
  breq.version(req.version);
  for (const auto& f : req.headers) breq.set(f.name_string(), f.value());
  {
    std::lock_guard lock(mu_);
    if (stopped_) return refuse(*ex, 503, "unavailable", "the gateway is shutting down");
  }
  auto socket = ex->take_socket();
  if (!socket)
    return refuse(*ex, 400, "invalid_argument",
                  "the upgrade must be the only request in flight on its connection");
  auto conn = std::make_shared<Connection>(*this, std::move(*socket), key);
  {
    std::lock_guard lock(mu_);
    connections_[conn.get()] = conn;
  }
  conn->accept(std::move(breq));
}

void Conductor::start(const std::shared_ptr<Connection>& conn, const Frame& frame) {
  const auto& o = options();
  const json& p = frame.payload;
  if (ctx_.keys && !ctx_.keys->empty() && !conn->key()) {
    std::string k = p.value("apiKey", "");
    GatewayKey* key = k.empty() ? nullptr : ctx_.keys->authenticate(k);
    if (!key) {
      conn->send_error("unauthenticated",
                       k.empty() ? "a gateway key is required (Authorization: Bearer KEY on the "
                                   "upgrade, or payload.apiKey in session.start)"
                                 : "invalid gateway key",
                       false, frame.id);
      return conn->close(1008, "unauthenticated");
    }
    conn->set_key(key);
  }
  if (GatewayKey* key = conn->key()) {
    if (auto wait = key->take_request(std::chrono::steady_clock::now()))
      return conn->send_error("rate_limited",
                              "rate limit of key '" + key->config().name + "'; retry in " +
                                  std::to_string(*wait) + " s",
                              true, frame.id);
  }

  if (auto r = p.find("resume"); r != p.end()) {
    std::string sid = (*r)["sessionId"].get<std::string>();
    std::optional<uint64_t> after = 0;  // no lastEventId: everything kept
    if (auto l = r->find("lastEventId"); l != r->end()) after = event_seq(*l);
    if (!after)
      return conn->send_error("schema_violation", "resume.lastEventId is not an event id", false,
                              frame.id);
    std::shared_ptr<Session> s;
    {
      std::lock_guard lock(mu_);
      if (auto it = sessions_.find(sid); it != sessions_.end()) s = it->second;
    }
    // Another key's session is, to this key, one that does not exist: the
    // same answer as an unknown id, whatever the token.
    if (s && s->owner() != conn->key()) s.reset();
    if (s) {
      if (!same_secret((*r)["token"].get<std::string>(), s->token()))
        return conn->send_error("invalid_resume_token",
                                "the resume token does not match session " + sid, false, frame.id);
      conn->set_session(s);
      asio::post(s->strand(), [s, conn, after] { s->attach(conn, after); });
      return;
    }
    if (ctx_.shared) {  // perhaps another replica's (docs/deploy.md#conductor-sessions)
      auto deadline = std::chrono::steady_clock::now() +
                      2 * ctx_.shared->options().conductor_lease + std::chrono::seconds(1);
      return take_over(conn, frame, sid, (*r)["token"].get<std::string>(), *after, deadline);
    }
    conn->send_error("session_expired",
                     "session " + sid + " expired or is unknown (sessions wait " +
                         std::to_string(o.resume_grace.count()) +
                         " ms for a resume); a new session was started",
                     false, frame.id);
  }
  start_fresh(conn, frame);
}

std::optional<SessionSetup> Conductor::build_setup(const std::shared_ptr<Connection>& conn,
                                                   const json& p, const std::string& frame_id) {
  const auto& o = options();
  // A fresh session: model, the device's tools, options.
  auto fail = [&](std::string_view code, std::string message, bool retryable,
                  const std::string& ref) -> std::optional<SessionSetup> {
    conn->send_error(code, std::move(message), retryable, ref);
    return std::nullopt;
  };
  std::string model = p.value("model", "");
  std::string routed = !model.empty()             ? model
                       : !o.default_model.empty() ? o.default_model
                                                  : "default";
  if (GatewayKey* key = conn->key(); key && !key->allows_model(routed))
    return fail("forbidden_model",
                "key '" + key->config().name + "' may not use model '" + routed + "'", false,
                frame_id);
  auto targets =
      ctx_.router ? ctx_.router->resolve(routed)
                  : Result<std::vector<RouteTarget>>(make_error(ErrorCode::not_found, "no router"));
  if (!targets || targets->empty())
    return fail("model_not_found",
                "no route for model '" + routed + "'" +
                    (targets ? std::string() : ": " + targets.error().message),
                false, frame_id);
  const RouteTarget& t = targets->front();
  SessionSetup setup;
  setup.owner = conn->key();
  setup.provider = t.provider;
  setup.upstream_name = t.name;
  setup.capture_content = t.capture_content;
  setup.model = !t.upstream_model.empty()  ? t.upstream_model
                : !model.empty()           ? model
                : !o.default_model.empty() ? o.default_model
                                           : std::string(t.provider->default_model());
  setup.system = p.value("system", "");
  setup.registry = &no_tools_;
  // A registry a LiveRegistry replaced stays alive with it (the session keeps this pointer).
  if (t.tools && t.tools->mode != ToolMode::passthrough && t.tools->current())
    setup.registry = t.tools->current().get();
  // The route's configured device tools first; a device that declares one
  // of them again gets the configured definition, listed once.
  auto add_device_tool = [&](std::string declared, std::string description,
                             std::string schema) -> bool {
    agent::RemoteTool rt;
    rt.definition.name = tools::to_wire_name(declared);  // some upstreams reject dots
    rt.definition.description = std::move(description);
    rt.definition.input_schema = std::move(schema);
    bool clash = setup.registry->find(rt.definition.name) != nullptr;
    for (const auto& d : setup.device_tools)
      clash = clash || d.definition.name == rt.definition.name;
    if (clash) {
      conn->send_error("invalid_tools",
                       "tool '" + declared + "' is declared twice or clashes with a server tool",
                       false, frame_id);
      return false;
    }
    setup.device_tools.push_back(std::move(rt));
    setup.device_names.push_back(std::move(declared));
    return true;
  };
  if (t.tools)
    for (const auto& d : t.tools->device_tools)
      if (!add_device_tool(d.name, d.description, d.parameters)) return std::nullopt;
  const size_t configured = setup.device_names.size();
  if (auto it = p.find("tools"); it != p.end()) {
    for (const auto& tool : *it) {
      std::string declared = tool["name"].get<std::string>();
      if (auto bad = tools::check_tool_name(declared); !bad.ok())
        return fail("invalid_tools", "tool '" + declared + "': " + bad.error().message, false,
                    frame_id);
      json params = tool.value("parameters", json{{"type", "object"}});
      if (auto c = tools::CompiledSchema::compile(params); !c)
        return fail("invalid_tools",
                    "tool '" + declared +
                        "': parameters is not a valid JSON "
                        "Schema: " +
                        c.error().to_string(),
                    false, frame_id);
      if (std::find(setup.device_names.begin(), setup.device_names.begin() + configured,
                    declared) != setup.device_names.begin() + configured)
        continue;
      if (!add_device_tool(std::move(declared), tool.value("description", ""), params.dump()))
        return std::nullopt;
    }
  }
  const json opts = p.value("options", json::object());
  setup.max_rounds = opts.value("maxToolRounds", o.max_tool_rounds);
  setup.tool_timeout = std::chrono::milliseconds(
      opts.value("toolTimeoutMs", static_cast<int64_t>(o.tool_timeout.count())));
  setup.history_turns = opts.value("historyTurns", o.history_turns);
  setup.delta = opts.value("partial", std::string("cumulative")) == "delta";
  setup.ui_calls = opts.value("uiCalls", o.ui_calls);
  setup.executor = &executor_for(*setup.registry);
  setup.turn_protocol = t.turn_protocol;
  setup.start = p;
  setup.start.erase("apiKey");
  setup.start.erase("resume");
  return setup;
}

void Conductor::start_fresh(const std::shared_ptr<Connection>& conn, const Frame& frame) {
  const auto& o = options();
  auto built = build_setup(conn, frame.payload, frame.id);
  if (!built) return;
  SessionSetup setup = std::move(*built);

  std::shared_ptr<Session> s;
  {
    std::lock_guard lock(mu_);
    if (stopped_)
      return conn->send_error("unavailable", "the gateway is shutting down", true, frame.id);
    if (sessions_.size() >= o.max_sessions)
      return conn->send_error("too_many_sessions",
                              "this gateway holds its maximum of " +
                                  std::to_string(o.max_sessions) + " conductor sessions",
                              true, frame.id);
    std::string id = "cs_" + secret_hex(12);
    s = std::make_shared<Session>(*this, asio::make_strand(conn->executor()), id, secret_hex(24),
                                  std::move(setup));
    sessions_.emplace(id, s);
  }
  conn->set_session(s);
  asio::post(s->strand(), [s, conn, shared = ctx_.shared] {
    s->attach(conn, std::nullopt);
    s->make_durable(shared);
  });
}

bool Conductor::take_key_frame(const GatewayKey* key, std::chrono::steady_clock::time_point now) {
  const auto& o = options();
  if (o.key_frames_per_second <= 0) return true;
  SharedBucket* b;
  {
    std::lock_guard lock(key_mu_);
    auto& slot = key_buckets_[key];  // keys live as long as the gateway
    if (!slot)
      slot = std::make_unique<SharedBucket>(
          o.key_frames_per_second,
          std::max(1.0, o.key_frame_burst > 0 ? o.key_frame_burst : o.key_frames_per_second));
    b = slot.get();
  }
  return b->take(now);
}

tools::Executor& Conductor::executor_for(const tools::Registry& registry) {
  std::lock_guard lock(mu_);
  auto& e = executors_[&registry];
  if (!e) e = std::make_unique<tools::Executor>(registry);
  return *e;
}

void Conductor::note_result_latency(std::chrono::steady_clock::duration d) {
  auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(d).count();
  uint32_t v = static_cast<uint32_t>(std::clamp<int64_t>(ns, 0, UINT32_MAX));
  std::lock_guard lock(lat_mu_);
  if (latency_ns_.size() < kLatencyWindow) {
    latency_ns_.push_back(v);
  } else {
    latency_ns_[latency_next_] = v;
    latency_next_ = (latency_next_ + 1) % kLatencyWindow;
  }
  ++latency_count_;
}

std::string Conductor::metrics_text() const {
  std::vector<uint32_t> v;
  uint64_t count;
  {
    std::lock_guard lock(lat_mu_);
    v = latency_ns_;
    count = latency_count_;
  }
  std::string out =
      "# HELP toolwire_conductor_sessions Conductor sessions held (attached or in their grace "
      "period).\n# TYPE toolwire_conductor_sessions gauge\ntoolwire_conductor_sessions " +
      std::to_string(session_count()) + "\n";
  out +=
      "# HELP toolwire_conductor_result_to_upstream_seconds From a tool.result frame's arrival "
      "to the next model request it unblocks (last 65536).\n"
      "# TYPE toolwire_conductor_result_to_upstream_seconds summary\n";
  std::sort(v.begin(), v.end());
  for (double q : {0.5, 0.9, 0.99}) {
    double val = v.empty() ? 0 : v[std::min(v.size() - 1, static_cast<size_t>(q * v.size()))] / 1e9;
    char buf[160];
    std::snprintf(buf, sizeof buf,
                  "toolwire_conductor_result_to_upstream_seconds{quantile=\"%g\"} %.9f\n", q, val);
    out += buf;
  }
  out += "toolwire_conductor_result_to_upstream_seconds_count " + std::to_string(count) + "\n";
  return out;
}

void Conductor::forget_session(const std::string& id) {
  std::lock_guard lock(mu_);
  sessions_.erase(id);
  idle_cv_.notify_all();
}

void Conductor::forget_connection(const Connection* conn) {
  std::lock_guard lock(mu_);
  connections_.erase(conn);
  idle_cv_.notify_all();
}

void Conductor::run_started() {
  std::lock_guard lock(mu_);
  ++live_runs_;
}

void Conductor::run_finished() {
  std::lock_guard lock(mu_);
  --live_runs_;
  idle_cv_.notify_all();
}

bool Conductor::wait_closed(std::chrono::milliseconds limit) {
  auto idle = [this] { return connections_.empty() && sessions_.empty() && live_runs_ == 0; };
  std::unique_lock lock(mu_);
  if (idle_cv_.wait_for(lock, limit, idle)) return true;
  // A device that never answered the close: its socket is cut.
  for (auto& [p, w] : connections_)
    if (auto c = w.lock()) c->abort();
  return idle_cv_.wait_for(lock, std::chrono::seconds(2), idle);
}

void Conductor::shutdown() {
  std::vector<std::shared_ptr<Connection>> conns;
  std::vector<std::shared_ptr<Session>> sessions;
  {
    std::lock_guard lock(mu_);
    stopped_ = true;
    for (auto& [p, w] : connections_)
      if (auto c = w.lock()) conns.push_back(std::move(c));
    for (auto& [id, s] : sessions_) sessions.push_back(s);
  }
  for (auto& c : conns) c->close(1001, "the gateway is shutting down");
  for (auto& s : sessions) asio::post(s->strand(), [s] { s->expire(Session::End::shutdown); });
}

// A resume for a session this replica does not hold: claimed in Redis
// (token and key checked there). An owner still alive is asked to hand it
// over (its next lease renewal) and asked again every 100 ms until
// `deadline`; an unknown, unreadable or unreachable one is session_expired,
// and the device gets a fresh session, as for an unknown id.
void Conductor::take_over(std::shared_ptr<Connection> conn, Frame frame, std::string sid,
                          std::string token, uint64_t after,
                          std::chrono::steady_clock::time_point deadline) {
  auto shared = ctx_.shared;
  std::string key = key_id(conn->key());
  std::string hash = token_hash(token);
  shared->claim_session(
      sid, hash, key,
      [this, conn, frame = std::move(frame), sid, token, after,
       deadline](Result<shared_state::SharedState::Claim> c) {
        asio::post(conn->executor(),
                   [this, conn, frame, sid, token, after, deadline, c = std::move(c)]() mutable {
                     claimed(conn, std::move(frame), sid, token, after, deadline, std::move(c));
                   });
      });
}

void Conductor::claimed(std::shared_ptr<Connection> conn, Frame frame, std::string sid,
                        std::string token, uint64_t after,
                        std::chrono::steady_clock::time_point deadline,
                        Result<shared_state::SharedState::Claim> c) {
  auto expired = [&](const std::string& why) {
    conn->send_error(
        "session_expired",
        "session " + sid + " cannot be resumed: " + why + "; a new session was started", false,
        frame.id);
    start_fresh(conn, frame);
  };
  {
    std::lock_guard lock(mu_);
    if (stopped_)
      return conn->send_error("unavailable", "the gateway is shutting down", true, frame.id);
  }
  if (!c) return expired("the shared session store is unavailable (" + c.error().message + ")");
  if (c->status == -2)
    return conn->send_error("invalid_resume_token",
                            "the resume token does not match session " + sid, false, frame.id);
  if (c->status == -1) return expired("it expired or is unknown");
  if (c->status == 0) {
    if (std::chrono::steady_clock::now() >= deadline)
      return expired("the replica that holds it did not hand it over in time");
    auto t = std::make_shared<asio::steady_timer>(conn->executor(), std::chrono::milliseconds(100));
    t->async_wait([this, t, conn, frame, sid, token, after, deadline](boost::system::error_code) {
      take_over(conn, frame, sid, token, after, deadline);
    });
    return;
  }
  auto rec = decode_record(c->fields);
  std::optional<SessionSetup> setup;
  if (rec) setup = build_setup(conn, rec->start, frame.id);
  if (!setup) {
    ctx_.shared->release_session(sid, /*drop=*/!rec);
    if (!rec) expired("its stored state is unreadable");
    return;
  }
  if (conn->gone()) {  // the device left while Redis answered: another may take it
    ctx_.shared->release_session(sid, false);
    return;
  }
  std::shared_ptr<Session> s;
  {
    std::lock_guard lock(mu_);
    if (sessions_.count(sid)) return expired("it is being resumed on another connection");
    s = std::make_shared<Session>(*this, asio::make_strand(conn->executor()), sid, token,
                                  std::move(*setup));
    sessions_.emplace(sid, s);
  }
  ctx_.log("conductor " + sid + ": taken over from another replica");
  conn->set_session(s);
  asio::post(s->strand(), [s, conn, shared = ctx_.shared, rec = std::move(*rec), after]() mutable {
    s->adopt(std::move(shared), std::move(rec), conn, after);
  });
}

}  // namespace toolwire::gateway::conductor
