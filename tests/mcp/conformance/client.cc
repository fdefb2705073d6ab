// toolwire's MCP client (Streamable HTTP) for @modelcontextprotocol/conformance's
// client scenarios. The runner starts it with the scenario server's URL as the
// last argument and MCP_CONFORMANCE_SCENARIO set; it connects (initialize,
// version negotiation, the GET stream), lists the tools and calls the ones the
// scenarios expect a client to call, then closes the session.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "toolwire/mcp/client.h"

using namespace std::chrono_literals;
using nlohmann::json;

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s [ARGS...] URL\n", argv[0]);
    return 2;
  }
  const char* scenario = std::getenv("MCP_CONFORMANCE_SCENARIO");
  toolwire::mcp::ClientOptions o;
  o.name = "conformance";
  o.http.url = argv[argc - 1];
  o.request_timeout = 20s;
  o.on_log = [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); };
  auto c = toolwire::mcp::Client::create(o);
  if (auto st = c->connect(); !st) {
    std::fprintf(stderr, "connect: %s\n", st.error().message.c_str());
    return 1;
  }
  std::printf("scenario %s: protocol %s\n", scenario ? scenario : "?",
              c->server_info().protocol_version.c_str());
  auto tools = c->list_tools();
  if (!tools) {
    std::fprintf(stderr, "tools/list: %s\n", tools.error().message.c_str());
    return 1;
  }
  int failed = 0;
  for (const auto& t : *tools) {
    json args = json::object();
    if (t.name == "add_numbers")
      args = {{"a", 2}, {"b", 3}};
    else if (t.name != "test_reconnection")
      continue;  // the scenarios' other tools need what toolwire does not offer (elicitation)
    auto r = c->call_tool(t.name, args);
    if (!r) {
      std::fprintf(stderr, "tools/call %s: %s\n", t.name.c_str(), r.error().message.c_str());
      ++failed;
      continue;
    }
    std::printf("tools/call %s: %s\n", t.name.c_str(), r->raw.dump().c_str());
  }
  c->close();
  return failed ? 1 : 0;
}
