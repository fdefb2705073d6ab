// The MCP client session: request/response matching over the stdio
// transport, deadlines driven by the transport's reader thread, crash
// detection and lazy restart with backoff.
#include "toolwire/mcp/client.h"

#include <future>
#include <thread>

namespace toolwire::mcp {

using nlohmann::json;
using Ms = std::chrono::milliseconds;

#ifndef TOOLWIRE_MCP_VERSION
#define TOOLWIRE_MCP_VERSION "0"
#endif

const std::vector<std::string>& supported_protocol_versions() {
  static const std::vector<std::string> v = {"2025-11-25", "2025-06-18"};
  return v;
}

namespace {

Error rpc_to_error(const std::string& who, const std::string& method, const RpcError& e) {
  ErrorCode code = ErrorCode::unavailable;
  if (e.code == rpc_error::method_not_found)
    code = ErrorCode::unimplemented;
  else if (e.code == rpc_error::invalid_params)
    code = ErrorCode::invalid_argument;
  else if (e.code == rpc_error::internal_error)
    code = ErrorCode::internal;
  return make_error(code, who + ": " + method + " failed: " + e.message + " (JSON-RPC error " +
                              std::to_string(e.code) + ")");
}

std::string one_line_tail(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  size_t nl = s.rfind('\n');
  if (nl != std::string::npos) s = s.substr(nl + 1);
  if (s.size() > 300) s = s.substr(s.size() - 300);
  return s;
}

}  // namespace

Result<McpTool> parse_tool(const json& t) {
  if (!t.is_object() || !t.contains("name") || !t["name"].is_string())
    return make_error(ErrorCode::invalid_argument, "a listed tool has no name");
  McpTool out;
  out.name = t["name"].get<std::string>();
  if (auto it = t.find("title"); it != t.end() && it->is_string()) out.title = *it;
  if (auto it = t.find("description"); it != t.end() && it->is_string()) out.description = *it;
  auto schema = t.find("inputSchema");
  if (schema == t.end() || !schema->is_object())
    return make_error(ErrorCode::invalid_argument, "tool '" + out.name + "' has no inputSchema");
  out.input_schema = *schema;
  if (auto it = t.find("outputSchema"); it != t.end() && it->is_object()) out.output_schema = *it;
  if (auto it = t.find("annotations"); it != t.end()) out.annotations = *it;
  return out;
}

std::shared_ptr<Client> Client::create(ClientOptions options) {
  return std::shared_ptr<Client>(new Client(std::move(options)));
}

Client::Client(ClientOptions options) : opts_(std::move(options)) {}

Client::~Client() { close(); }

ServerInfo Client::server_info() const {
  std::lock_guard<std::mutex> lock(mu_);
  return info_;
}
std::vector<McpTool> Client::tools() const {
  std::lock_guard<std::mutex> lock(mu_);
  return tools_;
}
uint64_t Client::tools_generation() const {
  std::lock_guard<std::mutex> lock(mu_);
  return tools_generation_;
}
int Client::starts() const {
  std::lock_guard<std::mutex> lock(mu_);
  return starts_;
}
pid_t Client::pid() const {
  std::lock_guard<std::mutex> lock(mu_);
  return transport_ && transport_->alive() ? transport_->pid() : -1;
}

Status Client::connect() { return ensure_started(Clock::now() + opts_.init_timeout); }

Status Client::ensure_started(Clock::time_point deadline) {
  std::lock_guard<std::mutex> start_lock(start_mu_);
  Clock::time_point not_before;
  std::string last_exit;
  {
    std::lock_guard<std::mutex> lock(mu_);
    last_exit = last_exit_;
    if (closed_) return make_error(ErrorCode::failed_precondition, who() + " is closed");
    if (initialized_ && transport_ && transport_->alive()) return {};
    // Backoff after crashes in a row: 1x, 2x, 4x ... capped.
    if (crashes_in_row_ > 0) {
      auto wait = opts_.restart_backoff;
      for (int i = 1; i < crashes_in_row_ && wait < opts_.restart_backoff_max; ++i) wait *= 2;
      wait = std::min(wait, opts_.restart_backoff_max);
      not_before = last_crash_ + wait;
    }
  }
  if (not_before > deadline)
    return make_error(
        ErrorCode::unavailable,
        who() + " " + last_exit + "; restarting it is backed off past this call's deadline");
  if (not_before > Clock::now()) std::this_thread::sleep_until(not_before);
  return start_locked(deadline);
}

Status Client::start_locked(Clock::time_point deadline) {
  std::shared_ptr<Transport> old;
  uint64_t inc;
  {
    std::lock_guard<std::mutex> lock(mu_);
    old = std::move(transport_);
    initialized_ = false;
    inc = ++incarnation_;
  }
  if (old) old->shutdown();  // its reader has ended (or is told to); joins it
  old.reset();

  StdioCallbacks cb;
  cb.on_line = [this](std::string_view l) { on_line(l); };
  cb.on_oversized = [this] {
    if (opts_.on_log) opts_.on_log(who() + " sent a message over the size limit; dropped");
  };
  cb.on_stderr = [this](std::string_view l) {
    if (opts_.on_log) opts_.on_log(std::string(l));
  };
  cb.on_exit = [this, inc](std::string reason) { on_exit(inc, std::move(reason)); };
  cb.next_deadline = [this] { return next_deadline(); };
  cb.on_tick = [this] { on_tick(); };
  std::shared_ptr<Transport> started;
  if (!opts_.http.url.empty()) {
    auto t = HttpTransport::start(opts_.http, std::move(cb));
    if (!t) return t.error();
    started = std::move(*t);
  } else {
    auto t = StdioTransport::start(opts_.server, std::move(cb));
    if (!t) return t.error();
    started = std::move(*t);
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    transport_ = std::move(started);
    ++starts_;
  }

  json params = {{"protocolVersion", opts_.protocol_versions.front()},
                 {"capabilities", json::object()},
                 {"clientInfo", {{"name", "toolwire"}, {"version", TOOLWIRE_MCP_VERSION}}}};
  auto done = std::make_shared<std::promise<Result<json>>>();
  auto fut = done->get_future();
  int64_t id;
  {
    std::lock_guard<std::mutex> lock(mu_);
    id = next_id_++;
  }
  RequestOptions ro;
  ro.timeout = std::chrono::duration_cast<Ms>(deadline - Clock::now());
  if (*ro.timeout < Ms(1)) ro.timeout = Ms(1);
  start_request(id, "initialize", std::move(params), ro,
                [done](Result<json> r) { done->set_value(std::move(r)); });
  Result<json> r = fut.get();  // bounded: the request has a deadline
  auto fail = [&](Error e) -> Status {
    std::shared_ptr<Transport> t2;
    {
      std::lock_guard<std::mutex> lock(mu_);
      t2 = std::move(transport_);
    }
    if (t2) t2->shutdown();
    return e;
  };
  if (!r) return fail(r.error());
  const json& res = *r;
  std::string version = res.value("protocolVersion", "");
  bool known = false;
  for (const auto& v : opts_.protocol_versions) known = known || v == version;
  if (!known)
    return fail(make_error(
        ErrorCode::failed_precondition,
        who() + " answered protocol version '" + version + "', which toolwire does not speak"));
  {
    std::lock_guard<std::mutex> lock(mu_);
    info_.protocol_version = version;
    info_.server_info = res.value("serverInfo", json::object());
    info_.capabilities = res.value("capabilities", json::object());
    info_.instructions = res.value("instructions", "");
    if (transport_) transport_->set_protocol_version(version);
  }
  if (Status st = send(Message::notification("notifications/initialized")); !st)
    return fail(st.error());
  std::lock_guard<std::mutex> lock(mu_);
  initialized_ = true;
  return {};
}

void Client::close() {
  std::shared_ptr<Transport> t;
  std::vector<int64_t> ids;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (closed_ && !transport_) return;
    closed_ = true;
    t = std::move(transport_);
    initialized_ = false;
    for (auto& [id, p] : pending_) ids.push_back(id);
  }
  for (int64_t id : ids)
    settle(id, make_error(ErrorCode::cancelled, who() + " closed"), false, "client closed");
  if (t) t->shutdown();
}

Status Client::send(const Message& m) {
  std::shared_ptr<Transport> t;
  {
    std::lock_guard<std::mutex> lock(mu_);
    t = transport_;
  }
  if (!t) return make_error(ErrorCode::unavailable, who() + " is not running");
  std::string frame = serialize(m);
  if (opts_.on_wire) opts_.on_wire("send", frame);
  return t->send(frame);
}

Status Client::notify(const std::string& method, json params) {
  return send(Message::notification(method, std::move(params)));
}

void Client::start_request(int64_t id, const std::string& method, json params,
                           const RequestOptions& opts, ResponseCallback done) {
  Pending p;
  p.done = std::move(done);
  p.method = method;
  p.deadline = Clock::now() + opts.timeout.value_or(opts_.request_timeout);
  p.cancel = opts.cancel;
  p.on_progress = opts.on_progress;
  if (p.on_progress) {
    p.progress_token = "tw-" + std::to_string(id);
    if (!params.is_object()) params = json::object();
    params["_meta"]["progressToken"] = p.progress_token;
  }
  std::shared_ptr<Transport> t;
  {
    std::lock_guard<std::mutex> lock(mu_);
    p.incarnation = incarnation_;
    pending_.emplace(id, std::move(p));
    t = transport_;
  }
  if (opts.cancel) {
    uint64_t hook = opts.cancel->on_cancel([this, id] {
      settle(id, make_error(ErrorCode::cancelled, who() + ": request cancelled"), true,
             "cancelled by the caller");
    });
    std::lock_guard<std::mutex> lock(mu_);
    auto it = pending_.find(id);
    // Already cancelled: the hook ran at once and settled it; send nothing.
    if (it == pending_.end()) return;
    it->second.cancel_hook = hook;
  }
  Status st = send(Message::request(id, method, std::move(params)));
  if (!st) {
    settle(id, Error(st.error()), false, "");
    return;
  }
  if (t) t->wake();  // the reader recomputes its next deadline
}

void Client::request_async(const std::string& method, json params, const RequestOptions& opts,
                           ResponseCallback done) {
  auto deadline = Clock::now() + opts.timeout.value_or(opts_.request_timeout);
  if (Status st = ensure_started(deadline); !st) return done(st.error());
  int64_t id;
  {
    std::lock_guard<std::mutex> lock(mu_);
    id = next_id_++;
  }
  start_request(id, method, std::move(params), opts, std::move(done));
}

Result<json> Client::request(const std::string& method, json params, const RequestOptions& opts) {
  auto done = std::make_shared<std::promise<Result<json>>>();
  auto fut = done->get_future();
  request_async(method, std::move(params), opts,
                [done](Result<json> r) { done->set_value(std::move(r)); });
  return fut.get();  // every pending request settles: response, deadline, cancel, exit, close
}

void Client::settle(int64_t id, Result<json> r, bool send_cancel, const std::string& reason) {
  Pending p;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = pending_.find(id);
    if (it == pending_.end()) return;
    p = std::move(it->second);
    pending_.erase(it);
    if (r.ok()) crashes_in_row_ = 0;
  }
  if (p.cancel && p.cancel_hook) p.cancel->remove_on_cancel(p.cancel_hook);
  // The spec forbids cancelling initialize.
  if (send_cancel && p.method != "initialize")
    (void)send(
        Message::notification("notifications/cancelled", {{"requestId", id}, {"reason", reason}}));
  if (p.done) p.done(std::move(r));
}

Clock::time_point Client::next_deadline() {
  std::lock_guard<std::mutex> lock(mu_);
  auto next = Clock::time_point::max();
  for (const auto& [id, p] : pending_) next = std::min(next, p.deadline);
  return next;
}

void Client::on_tick() {
  auto now = Clock::now();
  std::vector<std::pair<int64_t, std::string>> expired;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [id, p] : pending_)
      if (p.deadline <= now) expired.emplace_back(id, p.method);
  }
  for (auto& [id, method] : expired)
    settle(id, make_error(ErrorCode::deadline_exceeded, who() + ": " + method + " timed out"), true,
           "timed out");
}

void Client::on_exit(uint64_t incarnation, std::string reason) {
  std::vector<std::pair<int64_t, std::string>> failed;
  std::string tail;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (incarnation != incarnation_) return;
    initialized_ = false;
    if (!closed_) {
      ++crashes_in_row_;
      last_crash_ = Clock::now();
    }
    last_exit_ = reason;
    for (const auto& [id, p] : pending_)
      if (p.incarnation == incarnation) failed.emplace_back(id, p.method);
    if (transport_) tail = one_line_tail(transport_->stderr_tail());
  }
  if (opts_.on_log) opts_.on_log(who() + " " + reason);
  for (auto& [id, method] : failed) {
    std::string msg = who() + " " + reason + " during " + method;
    if (!tail.empty()) msg += " (stderr: " + tail + ")";
    settle(id, make_error(ErrorCode::unavailable, msg), false, "");
  }
}

void Client::on_line(std::string_view line) {
  if (opts_.on_wire) opts_.on_wire("recv", line);
  ParsedFrame f = parse_frame(line);
  for (const Message& e : f.errors)
    if (opts_.on_log) opts_.on_log(who() + " sent an invalid message: " + e.error.message);
  for (Message& m : f.messages) handle(std::move(m));
}

void Client::handle(Message m) {
  if (m.is_response()) {
    if (!m.id.is_number_integer()) {
      if (opts_.on_log) opts_.on_log(who() + " answered with an id toolwire never sent");
      return;
    }
    int64_t id = m.id.get<int64_t>();
    std::string method;
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = pending_.find(id);
      if (it == pending_.end()) return;  // late answer to a timed-out or cancelled request
      method = it->second.method;
    }
    if (m.kind == Message::Kind::error)
      settle(id, rpc_to_error(who(), method, m.error), false, "");
    else
      settle(id, std::move(m.result), false, "");
    return;
  }
  if (m.is_request()) {
    if (m.method == "ping")
      (void)send(Message::response(m.id, json::object()));
    else
      (void)send(
          Message::failure(m.id, rpc_error::method_not_found, "Method not found: " + m.method));
    return;
  }
  // Notifications.
  if (m.method == "notifications/tools/list_changed") {
    refresh_tools_async();
  } else if (m.method == "notifications/progress") {
    std::string token;
    if (m.params.is_object() && m.params.contains("progressToken")) {
      const json& t = m.params["progressToken"];
      token = t.is_string() ? t.get<std::string>() : t.dump();
    }
    std::function<void(const json&)> fn;
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (auto& [id, p] : pending_)
        if (!p.progress_token.empty() && p.progress_token == token) fn = p.on_progress;
    }
    if (fn) fn(m.params);
  } else if (m.method == "notifications/message") {
    if (opts_.on_log && m.params.is_object())
      opts_.on_log(who() + " [" + m.params.value("level", "info") + "] " +
                   m.params.value("data", json()).dump());
  }
}

Status Client::ping(std::optional<Ms> timeout) {
  RequestOptions o;
  o.timeout = timeout;
  auto r = request("ping", json::object(), o);
  if (!r) return r.error();
  return {};
}

namespace {

Result<std::vector<McpTool>> parse_page(const json& page, std::string* cursor) {
  std::vector<McpTool> out;
  if (!page.is_object() || !page.contains("tools") || !page["tools"].is_array())
    return make_error(ErrorCode::invalid_argument, "tools/list result has no tools array");
  for (const json& t : page["tools"]) {
    auto tool = parse_tool(t);
    if (!tool) return tool.error();
    out.push_back(std::move(*tool));
  }
  cursor->clear();
  if (auto it = page.find("nextCursor"); it != page.end() && it->is_string()) *cursor = *it;
  return out;
}

constexpr int kMaxPages = 10000;  // a server that pages forever is cut off

}  // namespace

Result<std::vector<McpTool>> Client::list_tools() {
  std::vector<McpTool> all;
  std::string cursor;
  for (int page = 0; page < kMaxPages; ++page) {
    json params = json::object();
    if (!cursor.empty()) params["cursor"] = cursor;
    auto r = request("tools/list", std::move(params));
    if (!r) return r.error();
    auto tools = parse_page(*r, &cursor);
    if (!tools)
      return make_error(ErrorCode::invalid_argument, who() + ": " + tools.error().message);
    for (auto& t : *tools) all.push_back(std::move(t));
    if (cursor.empty()) {
      std::lock_guard<std::mutex> lock(mu_);
      tools_ = all;
      ++tools_generation_;
      return all;
    }
  }
  return make_error(ErrorCode::resource_exhausted, who() + ": tools/list never ended");
}

// Re-lists on the reader thread without blocking it: each page's answer asks
// for the next. A change announced during a re-list triggers one more.
void Client::refresh_tools_async() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (refreshing_) {
      refresh_again_ = true;
      return;
    }
    refreshing_ = true;
  }
  struct State {
    std::vector<McpTool> all;
    int pages = 0;
    std::function<void(std::string)> next;
  };
  auto st = std::make_shared<State>();
  st->next = [this, st](std::string cursor) {
    json params = json::object();
    if (!cursor.empty()) params["cursor"] = cursor;
    int64_t id;
    {
      std::lock_guard<std::mutex> lock(mu_);
      id = next_id_++;
    }
    start_request(id, "tools/list", std::move(params), {}, [this, st](Result<json> r) {
      std::string cur;
      Result<std::vector<McpTool>> page =
          r ? parse_page(*r, &cur) : Result<std::vector<McpTool>>(r.error());
      bool again = false;
      if (page) {
        for (auto& t : *page) st->all.push_back(std::move(t));
        if (!cur.empty() && ++st->pages < kMaxPages) return st->next(cur);
        std::lock_guard<std::mutex> lock(mu_);
        tools_ = std::move(st->all);
        ++tools_generation_;
      } else if (opts_.on_log) {
        opts_.on_log(who() + ": re-listing tools failed: " + page.error().message);
      }
      {
        std::lock_guard<std::mutex> lock(mu_);
        refreshing_ = false;
        again = std::exchange(refresh_again_, false);
      }
      if (page && opts_.on_tools_changed) opts_.on_tools_changed();
      if (again) refresh_tools_async();
      st->next = nullptr;  // breaks the cycle st -> next -> st
    });
  };
  st->next("");
}

namespace {

Result<CallResult> to_call_result(Result<json> r) {
  if (!r) return std::move(r).error();
  CallResult c;
  c.raw = *r;
  if (!r->is_object())
    return make_error(ErrorCode::invalid_argument, "tools/call result is not an object");
  if (auto it = r->find("content"); it != r->end() && it->is_array()) c.content = *it;
  if (auto it = r->find("structuredContent"); it != r->end()) c.structured_content = *it;
  if (auto it = r->find("isError"); it != r->end() && it->is_boolean()) c.is_error = *it;
  return c;
}

}  // namespace

Result<CallResult> Client::call_tool(const std::string& name, const json& arguments,
                                     const RequestOptions& opts) {
  return to_call_result(request("tools/call", {{"name", name}, {"arguments", arguments}}, opts));
}

void Client::call_tool_async(const std::string& name, const json& arguments,
                             const RequestOptions& opts,
                             std::function<void(Result<CallResult>)> done) {
  request_async("tools/call", {{"name", name}, {"arguments", arguments}}, opts,
                [done = std::move(done)](Result<json> r) { done(to_call_result(std::move(r))); });
}

}  // namespace toolwire::mcp
