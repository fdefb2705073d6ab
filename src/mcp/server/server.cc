// The MCP server side: JSON-RPC dispatch onto the registry and an executor.
#include "toolwire/mcp/server.h"

#include <any>

#include "toolwire/mcp/client.h"
#include "toolwire/mcp/content.h"
#include "toolwire/mcp/tool_bridge.h"

namespace toolwire::mcp {

using nlohmann::json;

// The answers of one batch (2025-03-26), sent as one array when complete.
struct Server::Batch {
  std::vector<std::string> keys;  // its requests' ids, in order
  std::map<std::string, Message> answers;
  std::vector<Message> errors;  // for its invalid entries
};

Server::Server(const tools::Registry& registry, ServerOptions options, Writer writer)
    : registry_(&registry),
      opts_(std::move(options)),
      writer_(std::move(writer)),
      alive_(std::make_shared<Alive>()) {
  alive_->server = this;
  if (opts_.page_size == 0) opts_.page_size = 1;
  executor_ = opts_.executor;
  if (!executor_) {
    own_executor_ = true;
    executor_ = std::make_shared<tools::Executor>(
        *registry_,
        tools::ExecutorOptions{std::max<size_t>(1, opts_.max_concurrency), opts_.tool_timeout});
  }
}

Server::~Server() { shutdown(); }

void Server::shutdown() {
  {
    std::lock_guard<std::mutex> guard(alive_->mu);
    alive_->server = nullptr;
  }
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

void Server::restore(std::string version) {
  std::lock_guard<std::mutex> lock(mu_);
  version_ = std::move(version);
}

size_t Server::running_calls() const {
  std::lock_guard<std::mutex> lock(mu_);
  return running_.size();
}

void Server::write(std::string frame) {
  std::lock_guard<std::mutex> lock(write_mu_);
  writer_(std::move(frame));
}

void Server::reply(const Message& m) {
  if (m.is_response() && !m.id.is_null()) {
    std::vector<Message> done;
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = batch_of_.find(m.id.dump());
      if (it != batch_of_.end()) {
        std::shared_ptr<Batch> b = it->second;
        b->answers.emplace(it->first, m);
        batch_of_.erase(it);
        if (b->answers.size() < b->keys.size()) return;  // more to come
        for (const auto& k : b->keys) done.push_back(std::move(b->answers.at(k)));
        for (auto& e : b->errors) done.push_back(std::move(e));
      }
    }
    if (!done.empty()) return write(serialize_batch(done));
  }
  write(serialize(m));
}

bool Server::batches_allowed() const {
  std::lock_guard<std::mutex> lock(mu_);
  return version_ == "2025-03-26";
}

void Server::notify(const std::string& method, json params) {
  write(serialize(Message::notification(method, std::move(params))));
}

void Server::replace_tools(const tools::Registry& registry,
                           std::shared_ptr<tools::Executor> executor) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    registry_ = &registry;
    if (executor) executor_ = std::move(executor);
  }
  notify("notifications/tools/list_changed");
}

void Server::handle_oversized(size_t limit) {
  reply(
      Message::failure(nullptr, rpc_error::invalid_request,
                       "Invalid Request: message larger than " + std::to_string(limit) + " bytes"));
}

void Server::handle_frame(std::string_view frame) {
  ParsedFrame f = parse_frame(frame);
  if (f.batch) {
    // JSON-RPC batching was removed from MCP in 2025-06-18.
    std::string version = protocol_version();
    if (version != "2025-03-26")
      return reply(Message::failure(
          nullptr, rpc_error::invalid_request,
          "Invalid Request: JSON-RPC batches are not supported by MCP " +
              (version.empty() ? supported_protocol_versions().front() : version)));
    // An empty array is answered with one error, not an array (JSON-RPC 2.0).
    if (f.messages.empty() && f.errors.size() == 1 &&
        f.errors[0].error.message == "Invalid Request: empty batch")
      return reply(f.errors[0]);
    auto b = std::make_shared<Batch>();
    b->errors = std::move(f.errors);
    std::vector<const Message*> handled;
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (const Message& m : f.messages) {
        if (m.is_request()) {
          std::string key = m.id.dump();
          bool dup = batch_of_.count(key) || running_.count(key);
          if (dup) {
            b->errors.push_back(
                Message::failure(m.id, rpc_error::invalid_request,
                                 "Invalid Request: id " + key + " is already in use"));
            continue;
          }
          b->keys.push_back(key);
          batch_of_[key] = b;
        }
        handled.push_back(&m);
      }
    }
    if (b->keys.empty() && !b->errors.empty()) write(serialize_batch(b->errors));
    for (const Message* m : handled) handle(*m);
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
                 {"capabilities", {{"tools", {{"listChanged", opts_.list_changed}}}}},
                 {"serverInfo", {{"name", opts_.name}, {"version", opts_.version}}}};
  if (!opts_.instructions.empty()) result["instructions"] = opts_.instructions;
  return Message::response(m.id, std::move(result));
}

Message Server::list_tools(const Message& m) {
  const tools::Registry* registry;
  {
    std::lock_guard<std::mutex> lock(mu_);
    registry = registry_;
  }
  size_t start = 0;
  if (m.params.is_object() && m.params.contains("cursor")) {
    const json& c = m.params["cursor"];
    bool ok = c.is_string() && !c.get<std::string>().empty();
    if (ok) {
      const std::string s = c.get<std::string>();
      ok = s.find_first_not_of("0123456789") == std::string::npos && s.size() < 10;
      if (ok) start = std::stoul(s);
    }
    if (!ok || start > registry->size())
      return Message::failure(m.id, rpc_error::invalid_params, "tools/list: invalid cursor");
  }
  const auto& all = registry->tools();
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
  std::shared_ptr<tools::Executor> executor;
  bool known;
  {
    std::lock_guard<std::mutex> lock(mu_);
    known = registry_->find(name) != nullptr;
    executor = executor_;
  }
  if (!known)
    return reply(Message::failure(m.id, rpc_error::invalid_params, "Unknown tool: " + name));
  std::string key = m.id.dump();
  auto run = std::make_shared<Running>();
  bool in_use;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (shutting_down_) return;
    in_use = running_.count(key) > 0;
    if (!in_use) {
      running_[key] = run;
      ++outstanding_;
    }
  }
  if (in_use)  // answered outside mu_: reply() takes it
    return reply(Message::failure(m.id, rpc_error::invalid_request,
                                  "Invalid Request: id " + key + " is already in use"));
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
    } else {
      bool batched;
      {
        std::lock_guard<std::mutex> lock(mu_);
        batched = batch_of_.count(key) > 0;
      }
      // A batch is answered whole: its cancelled request gets an error entry.
      if (batched) reply(Message::failure(id, rpc_error::internal_error, "Request cancelled"));
    }
    std::lock_guard<std::mutex> lock(mu_);
    if (--outstanding_ == 0) idle_cv_.notify_all();
  };
  tools::CallOptions co;
  // A progressToken: progress the tool reports (an MCP tool: its server's)
  // goes to the client as notifications/progress for this request.
  if (auto meta = m.params.find("_meta"); meta != m.params.end() && meta->is_object()) {
    auto tok = meta->find("progressToken");
    if (tok != meta->end() && (tok->is_string() || tok->is_number_integer())) {
      ProgressSink sink;
      sink.report = [alive = alive_, token = *tok, key](const json& p) {
        std::lock_guard<std::mutex> guard(alive->mu);  // shutdown() waits for a report running
        Server* self = alive->server;
        if (!self) return;
        json params = {{"progressToken", token}};
        if (p.is_object())
          for (const char* f : {"progress", "total", "message"})
            if (auto it = p.find(f); it != p.end()) params[f] = *it;
        if (!params.contains("progress")) return;  // the schema requires it
        {
          std::lock_guard<std::mutex> lock(self->mu_);
          auto it = self->running_.find(key);
          if (it == self->running_.end() || it->second->cancelled) return;  // answered, cancelled
        }
        std::string frame =
            serialize(Message::notification("notifications/progress", std::move(params)));
        std::lock_guard<std::mutex> lock(self->write_mu_);
        if (self->related_writer_)
          self->related_writer_(std::move(frame), key);
        else
          self->writer_(std::move(frame));
      };
      co.session = std::make_shared<std::any>(std::move(sink));
    }
  }
  tools::CallHandle h = executor->submit(call, co, std::move(settle));
  bool cancel_now;
  {
    std::lock_guard<std::mutex> lock(mu_);
    run->handle = h;
    cancel_now = run->cancelled;  // a cancel that arrived before the handle was stored
  }
  if (cancel_now) h.cancel();
}

}  // namespace toolwire::mcp
