// The gateway's YAML configuration: what loads, and that every mistake is
// reported with file:line:column and its key path.
#include <gtest/gtest.h>

#include "toolwire/gateway/config.h"

namespace toolwire::gateway {
namespace {

const char* kGood = R"(listen: 127.0.0.1:0
threads: 2
limits:
  max_body_bytes: 4096
  header_timeout_ms: 500
keys:
  - name: ci
    sha256: "sha256:2bb80d537b1da3e38bd30361aa855686bde0eacd7162fef6a25fe97bf527a25b"
    models: ["gpt-*"]
    requests_per_minute: 60
    admin: true
upstreams:
  a: {profile: openai_compatible, base_url: "http://127.0.0.1:9/v1"}
  b: {profile: anthropic, base_url: "http://127.0.0.1:9", api_key_env: TOOLWIRE_TEST_SURELY_UNSET_VAR}
routes:
  - model: "gpt-*"
    aliases: [fast]
    upstreams: [a, {upstream: b, model: claude-x}]
  - model: demo
    upstreams: [b]
    tools: {mode: server, builtins: [read, grep], max_rounds: 3, tool_timeout_ms: 250}
)";

TEST(GatewayConfig, LoadsEverySection) {
  auto c = load_config_string(kGood, "good.yaml");
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->options.host, "127.0.0.1");
  EXPECT_EQ(c->options.port, 0);
  EXPECT_EQ(c->options.threads, 2);
  EXPECT_EQ(c->options.limits.max_body_bytes, 4096u);
  EXPECT_EQ(c->options.limits.header_timeout.count(), 500);
  ASSERT_EQ(c->keys.size(), 1u);
  EXPECT_EQ(c->keys[0].requests_per_minute, 60);
  EXPECT_TRUE(c->keys[0].admin);
  ASSERT_EQ(c->upstreams.size(), 2u);
  ASSERT_EQ(c->routes.size(), 2u);
  ASSERT_EQ(c->routes[0].targets.size(), 2u);
  EXPECT_EQ(c->routes[0].targets[1].upstream, "b");
  EXPECT_EQ(c->routes[0].targets[1].model, "claude-x");
  EXPECT_EQ(c->routes[0].aliases, std::vector<std::string>{"fast"});
  EXPECT_EQ(c->routes[1].tools.mode, ToolMode::server);
  EXPECT_EQ(c->routes[1].tools.max_rounds, 3);
  EXPECT_EQ(c->missing_env, std::vector<std::string>{"TOOLWIRE_TEST_SURELY_UNSET_VAR"});
}

struct Bad {
  const char* yaml;
  const char* expect;  // a substring of the message
};

class GatewayConfigErrors : public ::testing::TestWithParam<Bad> {};

TEST_P(GatewayConfigErrors, NameFileLineColumnAndKey) {
  auto c = load_config_string(GetParam().yaml, "bad.yaml");
  ASSERT_FALSE(c);
  EXPECT_NE(c.error().message.find(GetParam().expect), std::string::npos) << c.error().message;
}

INSTANTIATE_TEST_SUITE_P(
    Table, GatewayConfigErrors,
    ::testing::Values(
        Bad{"listen: x\n", "bad.yaml:1:9: listen: expected HOST:PORT"},
        Bad{"lisen: 1.2.3.4:5\n", "bad.yaml:1:1: lisen: unknown key"},
        Bad{"upstreams: {a: {profile: openai}}\nroutes: [{model: x, upstreams: [b]}]\n",
            "routes[0].upstreams[0]: unknown upstream 'b'"},
        Bad{"upstreams:\n  a: {profile: openai, base_url: \"http://h\"}\nroutes: [{model: x, "
            "upstreams: [a]}]\n",
            "bad.yaml:2:34: upstreams.a.base_url: an OpenAI-style base URL ends in /v1"},
        Bad{"upstreams: {a: {profile: scripted}}\nroutes: [{model: x, upstreams: [a], tools: "
            "{mode: sever}}]\n",
            "routes[0].tools.mode: expected passthrough, server or mixed"},
        Bad{"upstreams: {a: {profile: scripted}}\nroutes: [{model: x, upstreams: [a], tools: "
            "{builtins: [shell]}}]\n",
            "shell needs an allow-list"},
        Bad{"upstreams: {a: {profile: scripted}}\nroutes: [{model: x, upstreams: [a], tools: "
            "{tool_prefix: \"a b\"}}]\n",
            "routes[0].tools.tool_prefix: expected up to 32 of [a-zA-Z0-9_-]"},
        Bad{"limits: {max_body_bytes: lots}\nupstreams: {a: {profile: scripted}}\nroutes: [{model: "
            "x, upstreams: [a]}]\n",
            "limits.max_body_bytes: expected an integer"},
        Bad{"keys: [{sha256: nothex}]\nupstreams: {a: {profile: scripted}}\nroutes: [{model: x, "
            "upstreams: [a]}]\n",
            "keys[0].sha256"},
        Bad{"upstreams: {a: {profile: scripted}}\n", "routes: required"},
        Bad{"routes: [\n", "bad.yaml:"},  // a YAML syntax error keeps its position
        Bad{"upstreams: {a: {profile: openai_compatible, base_url: \"http://u:p@h/v1\"}}\nroutes: "
            "[]\n",
            "credentials in a URL are not accepted"},
        Bad{"upstreams: {a: {profile: scripted}}\nroutes: [{model: x, upstreams: [a], "
            "turn_protocol: xml}]\n",
            "bad.yaml:2:52: routes[0].turn_protocol: unknown turn protocol 'xml'"},
        Bad{"upstreams: {a: {profile: anthropic, script: s.json}}\nroutes: [{model: x, upstreams: "
            "[a]}]\n",
            "upstreams.a.script: only a scripted upstream takes a script"},
        Bad{"response_store: {max_responses: -1}\nupstreams: {a: {profile: scripted}}\nroutes: "
            "[{model: x, upstreams: [a]}]\n",
            "response_store.max_responses"},
        Bad{"response_store: {max_entries: 5}\nupstreams: {a: {profile: scripted}}\nroutes: "
            "[{model: x, upstreams: [a]}]\n",
            "bad.yaml:1:18: response_store.max_entries: unknown key"},
        Bad{"upstreams:\n  a: {profile: responses, base_url: \"http://h\"}\nroutes: [{model: x, "
            "upstreams: [a]}]\n",
            "upstreams.a.base_url: an OpenAI-style base URL ends in /v1"},
        Bad{"upstream_client: {transport: h2}\nupstreams: {a: {profile: scripted}}\nroutes: "
            "[{model: x, upstreams: [a]}]\n",
            "bad.yaml:1:30: upstream_client.transport: expected asio or curl, got 'h2'"},
        Bad{"upstream_client: {ca: x.pem}\nupstreams: {a: {profile: scripted}}\nroutes: "
            "[{model: x, upstreams: [a]}]\n",
            "bad.yaml:1:19: upstream_client.ca: unknown key"}));

// upstream_client: the HTTP client of every upstream (asio unless it says).
TEST(GatewayConfig, UpstreamClient) {
  const char* rest = "upstreams: {a: {profile: scripted}}\nroutes: [{model: x, upstreams: [a]}]\n";
  auto d = load_config_string(rest, "d.yaml");
  ASSERT_TRUE(d) << d.error().message;
  EXPECT_EQ(d->upstream_client.transport, "asio");
  EXPECT_EQ(d->upstream_client.ca_file, "");
  auto c = load_config_string(
      std::string("upstream_client: {transport: curl, ca_file: /etc/ca.pem}\n") + rest, "c.yaml");
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->upstream_client.transport, "curl");
  EXPECT_EQ(c->upstream_client.ca_file, "/etc/ca.pem");
}

TEST(GatewayConfig, ResponseStore) {
  auto d = load_config_string(
      "upstreams: {a: {profile: scripted}}\nroutes: [{model: x, upstreams: "
      "[a]}]\n",
      "d.yaml");
  ASSERT_TRUE(d) << d.error().message;
  EXPECT_EQ(d->options.response_store.max_responses, 1000u);
  EXPECT_EQ(d->options.response_store.max_bytes, 64u << 20);
  auto c = load_config_string(
      "response_store: {max_responses: 0, max_mb: 3}\nupstreams: {a: "
      "{profile: scripted}}\nroutes: [{model: x, upstreams: [a]}]\n",
      "c.yaml");
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->options.response_store.max_responses, 0u);
  EXPECT_EQ(c->options.response_store.max_bytes, 3u << 20);
}

// turn_protocol reaches the route's targets (the conductor reads it there);
// a scripted upstream's script file is read when the gateway is built.
TEST(GatewayConfig, TurnProtocolAndScript) {
  auto c = load_config_string(
      "upstreams: {s: {profile: scripted, script: /nonexistent/rules.json}}\n"
      "routes:\n  - {model: env, upstreams: [s], turn_protocol: envelope}\n"
      "  - {model: nat, upstreams: [s]}\n",
      "tp.yaml");
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->routes[0].turn_protocol, agent::TurnProtocol::envelope);
  EXPECT_EQ(c->routes[1].turn_protocol, agent::TurnProtocol::native);
  EXPECT_EQ(c->upstreams[0].script, "/nonexistent/rules.json");
  transport::HttpClient http;
  const OfflineDemo demo{.script = R"({"rules": []})", .todo_tools = {}};
  auto missing = build_gateway(*c, http, demo);
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find(
                "tp.yaml: upstreams.s: cannot open script '/nonexistent/rules.json'"),
            std::string::npos)
      << missing.error().message;
  c->upstreams[0].script.clear();
  // No script and none lent by the caller (the CLI lends the demo's).
  auto none = build_gateway(*c, http);
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().message.find("upstreams.s: a scripted model needs a script file"),
            std::string::npos)
      << none.error().message;
  auto built = build_gateway(*c, http, demo);
  ASSERT_TRUE(built) << built.error().message;
  auto env = built->router->resolve("env");
  ASSERT_TRUE(env);
  EXPECT_EQ(env->front().turn_protocol, agent::TurnProtocol::envelope);
  EXPECT_EQ(built->router->resolve("nat")->front().turn_protocol, agent::TurnProtocol::native);
  // The startup log says that a target without a model of its own gets the
  // client's model name as it is.
  bool said = false;
  for (const auto& line : built->described)
    said = said || line.starts_with("env -> s (model: the client's, unchanged)");
  EXPECT_TRUE(said) << ::testing::PrintToString(built->described);
}

TEST(GatewayConfig, OnLossPerRoute) {
  auto c = load_config_string(
      "upstreams: {s: {profile: scripted}}\n"
      "routes:\n  - {model: strict, upstreams: [s], on_loss: error,"
      " allow_loss: [dropped_image_detail]}\n"
      "  - {model: loose, upstreams: [s]}\n",
      "loss.yaml");
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->routes[0].on_loss.mode, LossPolicy::Mode::error);
  EXPECT_EQ(c->routes[0].on_loss.allow, std::vector<std::string>{"dropped_image_detail"});
  EXPECT_EQ(c->routes[1].on_loss.mode, LossPolicy::Mode::warn);
  transport::HttpClient http;
  const OfflineDemo demo{.script = R"({"rules": []})", .todo_tools = {}};
  auto built = build_gateway(*c, http, demo);
  ASSERT_TRUE(built) << built.error().message;
  EXPECT_EQ(built->router->resolve("strict")->front().on_loss, c->routes[0].on_loss);
  EXPECT_EQ(built->router->resolve("loose")->front().on_loss.mode, LossPolicy::Mode::warn);
  auto bad = load_config_string(
      "upstreams: {s: {profile: scripted}}\nroutes:\n  - {model: m, upstreams: [s], on_loss: "
      "drop}\n",
      "bad.yaml");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("routes[0].on_loss"), std::string::npos)
      << bad.error().message;
  EXPECT_NE(bad.error().message.find("expected warn or error"), std::string::npos)
      << bad.error().message;
}

TEST(GatewayConfig, TelemetryOtlp) {
  const std::string tail =
      "upstreams: {a: {profile: scripted}}\nroutes: [{model: x, upstreams: [a]}]\n";
  auto c = load_config_string(
      "telemetry:\n  otlp:\n    endpoint: http://collector:4318\n    headers: {x-tenant: a, "
      "authorization: Bearer t}\n    service_name: gw\n    batch_size: 10\n    queue_limit: "
      "100\n    timeout_ms: 500\n    flush_ms: 20\n" +
          tail,
      "t.yaml");
  ASSERT_TRUE(c) << c.error().message;
  const OtlpConfig& o = c->telemetry.otlp;
  EXPECT_EQ(o.url, "http://collector:4318/v1/traces");
  ASSERT_EQ(o.headers.size(), 2u);
  EXPECT_EQ(o.headers[0], (std::pair<std::string, std::string>{"x-tenant", "a"}));
  EXPECT_EQ(o.headers[1].second, "Bearer t");
  EXPECT_EQ(o.service_name, "gw");
  EXPECT_EQ(o.batch_size, 10u);
  EXPECT_EQ(o.queue_limit, 100u);
  EXPECT_EQ(o.timeout, std::chrono::milliseconds(500));
  EXPECT_EQ(o.flush_interval, std::chrono::milliseconds(20));
  EXPECT_FALSE(c->telemetry.traces.has_value());  // the export leaves the store's default alone

  auto none = load_config_string(tail, "t.yaml");
  ASSERT_TRUE(none);
  EXPECT_EQ(none->telemetry.otlp.url, "");

  for (const auto& [yaml, expect] : std::initializer_list<std::pair<const char*, const char*>>{
           {"telemetry: {otlp: {endpoint: collector:4318}}\n",
            "t.yaml:1:30: telemetry.otlp.endpoint: OTLP endpoint: give an http:// or https:// URL"},
           {"telemetry: {otlp: {headers: {a: b}}}\n", "telemetry.otlp: needs an endpoint"},
           {"telemetry: {otlp: {endpoint: \"http://h\", headers: {\"a b\": c}}}\n",
            "telemetry.otlp.headers.a b: 'a b' is not a header name"},
           {"telemetry: {otlp: {endpoint: \"http://h\", headers: [a]}}\n",
            "telemetry.otlp.headers: expected a mapping"},
           {"telemetry: {otlp: {endpoint: \"http://h\", batch: 5}}\n",
            "telemetry.otlp.batch: unknown key"},
           {"telemetry: {otlp: {endpoint: \"http://h\", batch_size: 0}}\n",
            "telemetry.otlp.batch_size: must be between 1"},
           {"telemetry: {otlp: {endpoint: \"http://h\", batch_size: 50, queue_limit: 10}}\n",
            "queue_limit must be at least batch_size"},
           {"telemetry: {otlp: {endpoint: \"http://h\", service_name: \"\"}}\n",
            "telemetry.otlp.service_name: is empty"},
       }) {
    auto bad = load_config_string(std::string(yaml) + tail, "t.yaml");
    ASSERT_FALSE(bad) << yaml;
    EXPECT_NE(bad.error().message.find(expect), std::string::npos) << bad.error().message;
  }
}

TEST(GatewayConfig, ExampleFileIsValid) {
  auto c = load_config_file(std::string(TOOLWIRE_SOURCE_DIR) + "/examples/gateway.yaml");
  ASSERT_TRUE(c) << c.error().message;
  ASSERT_EQ(c->routes.size(), 4u);
  EXPECT_EQ(c->routes[3].tools.tool_prefix, "gw_");
  EXPECT_TRUE(c->routes[3].tools.builtin_when_client_has_no_tools);
  EXPECT_EQ(c->options.conductor.default_model, "demo");
  ASSERT_EQ(c->routes[2].device_tools.size(), 2u);
  EXPECT_EQ(c->routes[2].device_tools[0].name, "agent.photo");
}

TEST(GatewayConfig, MissingFileIsNotFound) {
  auto c = load_config_file("/nonexistent/toolwire.yaml");
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().code, ErrorCode::not_found);
}

}  // namespace
}  // namespace toolwire::gateway
