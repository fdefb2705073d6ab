// The MCP server side: JSON-RPC dispatch onto the registry and an executor.
#include "toolwire/mcp/server.h"

#include "toolwire/mcp/client.h"
#include "toolwire/mcp/content.h"

namespace toolwire::mcp {

using nlohmann::json;

Server::Server(const tools::Registry& registry, ServerOptions options, Writer writer)
    : registry_(registry), opts_(std::move(options)), writer_(std::move(writer)) {
  if (opts_.page_size == 0) opts_.page_size = 1;
  executor_ = opts_.executor;
  if (!executor_) {
    own_executor_ = true;
    executor_ = std::make_shared<tools::Executor>(
        registry_,
        tools::ExecutorOptions{std::max<size_t>(1, opts_.max_concurrency), opts_.tool_timeout});
  }
}

Server::~Server() { shutdown(); }

void Server::shutdown() {
  std::map<std::string, std::shared_ptr<Running>> running;
  {
    std::lock_guard<std::mutex> lock(mu_);
    shutting_down_ = true;
    running.swap(running_);
    for (auto& [id, r] : running) r->cancelled = true;
  }
  std::vector<tools::CallHandle> handles;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& [id, r] : running) handles.push_back(r->handle);
  }
  for (auto& h : handles) h.cancel();
  // A cancelled call is settled at once, but its on_done may still be
  // running on a worker; it touches this object, so wait it out.
  {
    std::unique_lock<std::mutex> lock(mu_);
    idle_cv_.wait(lock, [&] { return outstanding_ == 0; });
  }
  // An own executor also waits for handlers still running; a shared one
  // stays (calls on it after shutdown are refused above it).
  if (own_executor_) executor_.reset();
}

std::string Server::protocol_version() const {
  std::lock_guard<std::mutex> lock(mu_);
  return version_;
}

size_t Server::running_calls() const {
  std::lock_guard<std::mutex> lock(mu_);
  return running_.size();
}

void Server::reply(const Message& m) {
  std::string frame = serialize(m);
  std::lock_guard<std::mutex> lock(write_mu_);
  writer_(std::move(frame));
}

void Server::handle_oversized(size_t limit) {
  reply(
      Message::failure(nullptr, rpc_error::invalid_request,
                       "Invalid Request: message larger than " + std::to_string(limit) + " bytes"));
}

void Server::handle_frame(std::string_view frame) {
  ParsedFrame f = parse_frame(frame);
  if (f.batch) {
    // JSON-RPC batching was removed from MCP in 2025-06-18; both versions we speak refuse it.
    reply(Message::failure(nullptr, rpc_error::invalid_request,
                           "Invalid Request: JSON-RPC batches are not supported by MCP " +
                               supported_protocol_versions().front()));
    return;
  }
  for (const Message& e : f.errors) reply(e);
  for (const Message& m : f.messages) handle(m);
}

void Server::handle(const Message& m) {
  if (m.is_response()) return;  // we send no requests; a stray answer is ignored
  if (m.is_notification()) {
    if (m.method == "notifications/cancelled" && m.params.is_object()) {
      auto id = m.params.find("requestId");
      if (id == m.params.end()) return;
      tools::CallHandle h;
      {
        std::lock_guard<std::mutex> lock(mu_);
        auto it = running_.find(id->dump());
        if (it == running_.end()) return;  // finished already, or never ours
        it->second->cancelled = true;
        h = it->second->handle;  // empty until submit() returned; call_tool cancels then
      }
      h.cancel();
    }
    return;  // notifications/initialized and unknown notifications need nothing
  }
  if (m.method == "initialize") return reply(initialize(m));
  if (m.method == "ping") return reply(Message::response(m.id, json::object()));
  if (m.method == "tools/list") return reply(list_tools(m));
  if (m.method == "tools/call") return call_tool(m);
  reply(Message::failure(m.id, rpc_error::method_not_found, "Method not found: " + m.method));
}

Message Server::initialize(const Message& m) {
  std::string asked;
  if (m.params.is_object() && m.params.contains("protocolVersion") &&
      m.params["protocolVersion"].is_string())
    asked = m.params["protocolVersion"].get<std::string>();
  else
    return Message::failure(m.id, rpc_error::invalid_params,
                            "initialize: params.protocolVersion must be a string");
  const auto& ours = supported_protocol_versions();
  std::string version = ours.front();
  for (const auto& v : ours)
    if (v == asked) version = v;
  {
    std::lock_guard<std::mutex> lock(mu_);
    version_ = version;
  }
  json result = {{"protocolVersion", version},
                 {"capabilities", {{"tools", {{"listChanged", false}}}}},
                 {"serverInfo", {{"name", opts_.name}, {"version", opts_.version}}}};
  if (!opts_.instructions.empty()) result["instructions"] = opts_.instructions;
  return Message::response(m.id, std::move(result));
}

Message Server::list_tools(const Message& m) {
  size_t start = 0;
  if (m.params.is_object() && m.params.contains("cursor")) {
    const json& c = m.params["cursor"];
    bool ok = c.is_string() && !c.get<std::string>().empty();
    if (ok) {
      const std::string s = c.get<std::string>();
      ok = s.find_first_not_of("0123456789") == std::string::npos && s.size() < 10;
      if (ok) start = std::stoul(s);
    }
    if (!ok || start > registry_.size())
      return Message::failure(m.id, rpc_error::invalid_params, "tools/list: invalid cursor");
  }
  const auto& all = registry_.tools();
  size_t end = std::min(all.size(), start + opts_.page_size);
  json tools = json::array();
  for (size_t i = start; i < end; ++i) {
    const tools::Tool& t = *all[i];
    json schema = t.schema();
    json entry = {{"name", t.wire_name()}, {"inputSchema", std::move(schema)}};
    if (!t.description().empty()) entry["description"] = t.description();
    tools.push_back(std::move(entry));
  }
  json result = {{"tools", std::move(tools)}};
  if (end < all.size()) result["nextCursor"] = std::to_string(end);
  return Message::response(m.id, std::move(result));
}

void Server::call_tool(const Message& m) {
  if (!m.params.is_object() || !m.params.contains("name") || !m.params["name"].is_string())
    return reply(Message::failure(m.id, rpc_error::invalid_params,
                                  "tools/call: params.name must be a string"));
  std::string name = m.params["name"].get<std::string>();
  json args = json::object();
  if (auto it = m.params.find("arguments"); it != m.params.end() && !it->is_null()) {
    if (!it->is_object())
      return reply(Message::failure(m.id, rpc_error::invalid_params,
                                    "tools/call: params.arguments must be an object"));
    args = *it;
  }
  if (!registry_.find(name))
    return reply(Message::failure(m.id, rpc_error::invalid_params, "Unknown tool: " + name));
  std::string key = m.id.dump();
  auto run = std::make_shared<Running>();
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (shutting_down_) return;
    if (running_.count(key))
      return reply(Message::failure(m.id, rpc_error::invalid_request,
                                    "Invalid Request: id " + key + " is already in use"));
    running_[key] = run;
    ++outstanding_;
  }
  ir::ToolCallPart call;
  call.id = m.id.is_string() ? m.id.get<std::string>() : key;
  call.name = name;
  call.arguments = args.dump();
  json id = m.id;
  // submit() may settle at once (validation failure) on this thread; the
  // handle is stored after, so on_done must not rely on it.
  auto settle = [this, id, key, run](ir::ToolResultPart r) {
    bool cancelled;
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = running_.find(key);
      if (it != running_.end() && it->second == run) running_.erase(it);
      cancelled = run->cancelled;
    }
    if (!cancelled) {
      json result = {{"content", to_mcp_content(r.content)}, {"isError", r.is_error}};
      reply(Message::response(id, std::move(result)));
    }
    std::lock_guard<std::mutex> lock(mu_);
    if (--outstanding_ == 0) idle_cv_.notify_all();
  };
  tools::CallHandle h = executor_->submit(call, {}, std::move(settle));
  bool cancel_now;
  {
    std::lock_guard<std::mutex> lock(mu_);
    run->handle = h;
    cancel_now = run->cancelled;  // a cancel that arrived before the handle was stored
  }
  if (cancel_now) h.cancel();
}

}  // namespace toolwire::mcp
