// Validates MCP messages toolwire sends against the official JSON Schema
// (tests/mcp/schema/<version>/schema.json, copied from upstream; see SOURCE.md).
#pragma once

#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "toolwire/tools/schema.h"

namespace toolwire::testing {

class McpSchema {
 public:
  explicit McpSchema(const std::string& version = "2025-11-25") {
    std::ifstream in(std::string(TOOLWIRE_SOURCE_DIR) + "/tests/mcp/schema/" + version +
                     "/schema.json");
    std::stringstream ss;
    ss << in.rdbuf();
    doc_ = nlohmann::json::parse(ss.str());
    defs_key_ = doc_.contains("$defs") ? "$defs" : "definitions";
  }

  // "" when `msg` is valid against the definition `def`, else the violations.
  std::string check(const nlohmann::json& msg, const std::string& def) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = compiled_.find(def);
    if (it == compiled_.end()) {
      if (!doc_[defs_key_].contains(def)) return "no definition " + def;
      nlohmann::json s = {{"$schema", doc_["$schema"]},
                          {defs_key_, doc_[defs_key_]},
                          {"$ref", "#/" + defs_key_ + "/" + def}};
      auto c = tools::CompiledSchema::compile(s, {.resolve_remote = {}, .check_meta = false});
      if (!c) return "schema " + def + " does not compile: " + c.error().message;
      it = compiled_.emplace(def, std::make_unique<tools::CompiledSchema>(std::move(*c))).first;
    }
    Status st = it->second->validate(msg);
    return st ? "" : def + ": " + st.error().message;
  }

  // A message a client sends: its definition by method.
  std::string check_client_message(const nlohmann::json& msg) {
    static const std::map<std::string, std::string> by_method = {
        {"initialize", "InitializeRequest"},
        {"ping", "PingRequest"},
        {"tools/list", "ListToolsRequest"},
        {"tools/call", "CallToolRequest"},
        {"notifications/initialized", "InitializedNotification"},
        {"notifications/cancelled", "CancelledNotification"}};
    if (msg.contains("method")) {
      auto it = by_method.find(msg["method"].get<std::string>());
      if (it == by_method.end()) return "unexpected method " + msg["method"].dump();
      return check(msg, it->second);
    }
    return check_response(msg, "");
  }

  // A response; `result_def` names the result type when known ("CallToolResult").
  std::string check_response(const nlohmann::json& msg, const std::string& result_def) {
    if (msg.contains("error")) return check(msg, "JSONRPCErrorResponse");
    std::string e = check(msg, "JSONRPCResultResponse");
    if (e.empty() && !result_def.empty() && msg.contains("result"))
      e = check(msg["result"], result_def);
    return e;
  }

 private:
  nlohmann::json doc_;
  std::string defs_key_;
  std::mutex mu_;
  std::map<std::string, std::unique_ptr<tools::CompiledSchema>> compiled_;
};

}  // namespace toolwire::testing
