// Traces of gateway requests, built from YAML with `telemetry:` in a temp
// folder: a request whose route runs a server tool (two model calls, one
// tool call: names, ids, runner, outcome, tokens, attempts), with content
// captured or not, a client's own tool call handed back, gateway keys (a
// key's name in the trace, never the key; a key reads only its own
// traces), the filters of GET /v1/traces and its bad input.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "gateway_rig.h"
#include "mock_upstream.h"
#include "toolwire/gateway/auth.h"
#include "toolwire/gateway/config.h"
#include "toolwire/telemetry/trace_store.h"
#include "toolwire/transport/http_client.h"

namespace toolwire::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kKey = "tw-gateway-key-VERY-SECRET-77";
constexpr const char* kFileSecret = "sk-live-abcdefghijklmnop1234";

std::vector<ir::StreamEvent> call_read() {
  return {ir::MessageStart{"m1", "up-model", 1},
          ir::ToolCallStart{0, "call_r1", "read"},
          ir::ToolCallDelta{0, R"({"path":"notes.txt"})"},
          ir::ToolCallEnd{0},
          ir::UsageEvent{ir::Usage{11, 5, {}, {}}},
          ir::Finish{ir::FinishReason{ir::FinishReason::Kind::tool_calls, "tool_calls"}}};
}

std::vector<ir::StreamEvent> answer() {
  return {ir::MessageStart{"m2", "up-model", 1}, ir::TextDelta{"The notes say hi."},
          ir::UsageEvent{ir::Usage{20, 6, {}, {}}},
          ir::Finish{ir::FinishReason{ir::FinishReason::Kind::stop, "stop"}}};
}

class Traces : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("tw-traces-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "ws");
    std::ofstream(dir_ / "ws" / "notes.txt") << "hi, and " << kFileSecret << "\n";
  }
  void TearDown() override {
    if (gateway_) {
      gateway_->stop();
      gateway_->wait();
    }
    gateway_.reset();
    built_ = {};
    fs::remove_all(dir_);
  }

  void start(const std::string& route_extra, const std::string& top_extra = "") {
    std::string yaml =
        top_extra + "telemetry:\n  traces: true\n  data_dir: " + (dir_ / "data").string() +
        "\nupstreams:\n  up:\n    profile: openai\n    base_url: " + upstream_.url("/v1") +
        "\n    max_attempts: 1\n" + "routes:\n  - model: '*'\n    upstreams: [up]\n" + route_extra;
    auto cfg = gateway::load_config_string(yaml, "t.yaml");
    ASSERT_TRUE(cfg.ok()) << cfg.error().to_string();
    auto b = gateway::build_gateway(*cfg, client_);
    ASSERT_TRUE(b.ok()) << b.error().to_string();
    built_ = std::move(*b);
    ASSERT_TRUE(built_.traces) << built_.traces_warning;
    gateway::GatewayOptions o = small_options();
    o.log = [](std::string_view) {};
    gateway_ = std::make_unique<gateway::Gateway>(o, built_.router);
    gateway_->set_keys(built_.keys);
    gateway_->set_traces(built_.traces);
    ASSERT_TRUE(gateway_->start().ok());
  }

  std::string tools_route(bool capture) const {
    return "    capture_content: " + std::string(capture ? "true" : "false") +
           "\n    tools:\n      mode: server\n      workspace: " + (dir_ / "ws").string() +
           "\n      builtins: [read]\n";
  }

  HttpResponse post(const std::string& body, const std::string& headers = "") {
    RawClient c(gateway_->port());
    EXPECT_TRUE(c.send(http_post("/v1/chat/completions", body, headers)));
    auto r = c.read_response();
    EXPECT_TRUE(r.has_value());
    return r.value_or(HttpResponse{});
  }
  HttpResponse get(const std::string& target, const std::string& headers = "") {
    built_.traces->flush();  // written off the request path: wait for the writer
    RawClient c(gateway_->port());
    EXPECT_TRUE(c.send("GET " + target + " HTTP/1.1\r\nHost: x\r\n" + headers + "\r\n"));
    auto r = c.read_response();
    EXPECT_TRUE(r.has_value());
    return r.value_or(HttpResponse{});
  }
  json trace_of(const HttpResponse& list, const std::string& headers = "") {
    json l = json::parse(list.body, nullptr, false);
    EXPECT_TRUE(l.is_object() && l["traces"].is_array() && !l["traces"].empty()) << list.body;
    if (!l.is_object() || l["traces"].empty()) return json();
    auto one = get("/v1/traces/" + l["traces"][0]["trace_id"].get<std::string>(), headers);
    EXPECT_EQ(one.status, 200) << one.body;
    return json::parse(one.body, nullptr, false);
  }

  static std::vector<json> spans(const json& t, std::string_view kind) {
    std::vector<json> out;
    for (const auto& s : t["spans"])
      if (s["kind"] == kind) out.push_back(s);
    return out;
  }

  fs::path dir_;
  MockHttpServer upstream_;
  Upstream wire_{"openai_chat"};
  transport::HttpClient client_;
  gateway::BuiltGateway built_;
  std::unique_ptr<gateway::Gateway> gateway_;
};

const std::string kAsk =
    R"({"model":"gpt-t","messages":[{"role":"user","content":"read my notes"}]})";

TEST_F(Traces, ServerToolRequestHasItsSpans) {
  start(tools_route(false));
  upstream_.enqueue(wire_.whole(call_read()));
  upstream_.enqueue(wire_.whole(answer()));
  auto r = post(kAsk);
  ASSERT_EQ(r.status, 200) << r.body;
  json t = trace_of(get("/v1/traces"));
  ASSERT_TRUE(t.is_object());
  EXPECT_EQ(t["kind"], "request");
  EXPECT_EQ(t["name"], "/v1/chat/completions");
  EXPECT_EQ(t["model"], "gpt-t");
  EXPECT_EQ(t["status"], 200);
  EXPECT_EQ(t["error"], false);
  EXPECT_EQ(t["trace_id"].get<std::string>().size(), 32u);
  auto models = spans(t, "model_call");
  ASSERT_EQ(models.size(), 2u) << t.dump(1);
  const json& m = models[0]["attributes"];
  EXPECT_EQ(m["gen_ai.operation.name"], "chat");
  EXPECT_EQ(m["gen_ai.request.model"], "gpt-t");
  EXPECT_EQ(m["gen_ai.response.model"], "up-model");
  EXPECT_EQ(m["gen_ai.response.id"], "m1");
  EXPECT_EQ(m["gen_ai.usage.input_tokens"], 11);
  EXPECT_EQ(m["gen_ai.usage.output_tokens"], 5);
  EXPECT_EQ(m["toolwire.upstream"], "up");
  EXPECT_EQ(m["toolwire.route"], "/v1/chat/completions");
  EXPECT_EQ(m["toolwire.dialect.caller"], "openai_chat");
  EXPECT_EQ(m["toolwire.attempts"], 1);
  EXPECT_EQ(m["toolwire.outcome"], "ok");
  EXPECT_TRUE(m.contains("toolwire.latency_ms"));
  EXPECT_TRUE(m.contains("toolwire.time_to_first_byte_ms"));
  EXPECT_EQ(models[1]["attributes"]["gen_ai.usage.input_tokens"], 20);
  auto tools = spans(t, "tool_call");
  ASSERT_EQ(tools.size(), 1u) << t.dump(1);
  const json& a = tools[0]["attributes"];
  EXPECT_EQ(tools[0]["name"], "execute_tool read");
  EXPECT_EQ(a["gen_ai.operation.name"], "execute_tool");
  EXPECT_EQ(a["gen_ai.tool.name"], "read");
  EXPECT_EQ(a["gen_ai.tool.call.id"], "call_r1");
  EXPECT_EQ(a["toolwire.tool.runner"], "server");
  EXPECT_EQ(a["toolwire.tool.outcome"], "ok");
  EXPECT_TRUE(a.contains("toolwire.duration_ms"));
  // Content capture is off by default: no arguments, results or text.
  EXPECT_FALSE(a.contains("gen_ai.tool.call.arguments"));
  EXPECT_FALSE(a.contains("gen_ai.tool.call.result"));
  EXPECT_FALSE(m.contains("toolwire.output.text"));
  EXPECT_EQ(t.dump().find("notes.txt"), std::string::npos);
}

TEST_F(Traces, CapturedContentIsRedacted) {
  start(tools_route(true));
  upstream_.enqueue(wire_.whole(call_read()));
  upstream_.enqueue(wire_.whole(answer()));
  ASSERT_EQ(post(kAsk).status, 200);
  json t = trace_of(get("/v1/traces"));
  auto tools = spans(t, "tool_call");
  ASSERT_EQ(tools.size(), 1u);
  const json& a = tools[0]["attributes"];
  EXPECT_EQ(a["gen_ai.tool.call.arguments"], R"({"path":"notes.txt"})");
  std::string result = a["gen_ai.tool.call.result"];
  EXPECT_NE(result.find("hi, and [redacted]"), std::string::npos) << result;
  EXPECT_EQ(t.dump().find(kFileSecret), std::string::npos);
  EXPECT_EQ(spans(t, "model_call")[1]["attributes"]["toolwire.output.text"], "The notes say hi.");
}

TEST_F(Traces, ClientToolsAreHandedBackStreamedToo) {
  start("");
  upstream_.enqueue(wire_.stream(call_read()));
  auto r = post(R"({"model":"gpt-t","stream":true,"messages":[{"role":"user","content":"x"}],)"
                R"("tools":[{"type":"function","function":{"name":"read","parameters":{}}}]})");
  ASSERT_EQ(r.status, 200);
  json t = trace_of(get("/v1/traces"));
  auto tools = spans(t, "tool_call");
  ASSERT_EQ(tools.size(), 1u) << t.dump(1);
  EXPECT_EQ(tools[0]["attributes"]["toolwire.tool.runner"], "client");
  EXPECT_EQ(tools[0]["attributes"]["toolwire.tool.outcome"], "returned");
  EXPECT_EQ(tools[0]["attributes"]["gen_ai.tool.call.id"], "call_r1");
  EXPECT_EQ(spans(t, "model_call")[0]["attributes"]["toolwire.stream"], true);
}

// With content capture, a client's call keeps the arguments the model gave
// it (the console shows them), whole or gathered from a stream's fragments.
TEST_F(Traces, ClientCallsKeepTheirArgumentsWhenCaptured) {
  start("    capture_content: true\n");
  for (bool stream : {false, true}) {
    upstream_.enqueue(stream ? wire_.stream(call_read()) : wire_.whole(call_read()));
    auto r = post(std::string(R"({"model":"gpt-t","stream":)") + (stream ? "true" : "false") +
                  R"(,"messages":[{"role":"user","content":"x"}],)"
                  R"("tools":[{"type":"function","function":{"name":"read","parameters":{}}}]})");
    ASSERT_EQ(r.status, 200);
    json t = trace_of(get("/v1/traces?limit=1"));
    auto tools = spans(t, "tool_call");
    ASSERT_EQ(tools.size(), 1u) << t.dump(1);
    EXPECT_EQ(tools[0]["attributes"]["toolwire.tool.runner"], "client");
    EXPECT_EQ(tools[0]["attributes"]["gen_ai.tool.call.arguments"], R"({"path":"notes.txt"})")
        << (stream ? "streamed" : "whole");
  }
}

TEST_F(Traces, FailuresAndFilters) {
  start("");
  upstream_.enqueue(wire_.whole(answer()));
  Error e = make_error(ErrorCode::invalid_argument, "bad thing");
  e.http_status = 400;
  upstream_.enqueue(MockResponse::json(400, wire_.codec().encode_error(e).body));
  ASSERT_EQ(post(kAsk).status, 200);
  ASSERT_EQ(post(R"({"model":"gpt-other","messages":[{"role":"user","content":"x"}]})").status,
            400);
  auto all = json::parse(get("/v1/traces").body);
  ASSERT_EQ(all["traces"].size(), 2u) << all.dump();
  EXPECT_EQ(all["traces"][0]["model"], "gpt-other");  // newest first
  auto errors = json::parse(get("/v1/traces?errors=true").body);
  ASSERT_EQ(errors["traces"].size(), 1u);
  EXPECT_EQ(errors["traces"][0]["status"], 400);
  EXPECT_EQ(json::parse(get("/v1/traces?model=gpt-t").body)["traces"].size(), 1u);
  EXPECT_EQ(json::parse(get("/v1/traces?status=400&limit=5").body)["traces"].size(), 1u);
  EXPECT_EQ(json::parse(get("/v1/traces?limit=1").body)["traces"].size(), 1u);
  json failed = trace_of(get("/v1/traces?errors=1"));
  auto m = spans(failed, "model_call");
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0]["error"], true);
  EXPECT_EQ(m[0]["attributes"]["http.response.status_code"], 400);
  EXPECT_NE(m[0]["status_message"].get<std::string>().find("bad thing"), std::string::npos);
  // Bad input: a clear 400, never a crash.
  for (const char* q : {"?limit=0", "?limit=abc", "?status=7", "?errors=maybe", "?nope=1",
                        "?model=a&model=b", "?key=%zz", "?key=%0a"}) {
    auto r = get(std::string("/v1/traces") + q);
    EXPECT_EQ(r.status, 400) << q << " " << r.body;
    EXPECT_NE(r.body.find("traces query"), std::string::npos) << r.body;
  }
  EXPECT_EQ(get("/v1/traces/nothex").status, 400);
  EXPECT_EQ(get("/v1/traces/" + std::string(32, 'a')).status, 404);
  // The store's counts are on /metrics: the two answered requests written, none dropped.
  auto metrics = get("/metrics").body;
  EXPECT_NE(metrics.find("\ntoolwire_traces_written_total 2\n"), std::string::npos) << metrics;
  EXPECT_NE(metrics.find("\ntoolwire_traces_dropped_total 0\n"), std::string::npos) << metrics;
}

TEST_F(Traces, AKeysNameNeverItsValueAndOnlyItsOwnTraces) {
  const std::string yaml_keys =
      "keys:\n  - name: ci\n    sha256: \"sha256:" + gateway::sha256_hex(kKey) +
      "\"\n  - name: other\n    sha256: \"sha256:" + gateway::sha256_hex("another-key-123456") +
      "\"\n";
  start("", yaml_keys);
  upstream_.enqueue(wire_.whole(answer()));
  const std::string auth = "Authorization: Bearer " + std::string(kKey) + "\r\n";
  ASSERT_EQ(post(kAsk, auth).status, 200);
  EXPECT_EQ(get("/v1/traces").status, 401);  // keys configured: a key is required
  auto mine = get("/v1/traces", auth);
  ASSERT_EQ(mine.status, 200);
  json t = trace_of(mine, auth);
  EXPECT_EQ(t["key"], "ci");
  EXPECT_EQ(t.dump().find(kKey), std::string::npos);
  // The other key sees none of it, listed or by id.
  const std::string other = "Authorization: Bearer another-key-123456\r\n";
  EXPECT_EQ(json::parse(get("/v1/traces", other).body)["traces"].size(), 0u);
  EXPECT_EQ(json::parse(get("/v1/traces?key=ci", other).body)["traces"].size(), 0u);
  EXPECT_EQ(get("/v1/traces/" + t["trace_id"].get<std::string>(), other).status, 404);
  // Nor is the key in the database file.
  built_.traces->flush();
  for (const auto& f : fs::recursive_directory_iterator(dir_ / "data")) {
    std::ifstream in(f.path(), std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(bytes.find(kKey), std::string::npos) << f.path();
  }
}

// What a stream loses after its headers went out (here: an OpenAI upstream's
// logprobs and system_fingerprint, which an Anthropic client's stream has no
// place for) is on the model call's span, `toolwire.stream_warnings`, as
// `code (path)` items; `on_loss: error` cannot refuse it any more, and the
// stream ends normally.
TEST_F(Traces, LossesFoundMidStreamAreOnTheModelSpan) {
  start("    on_loss: error\n");
  MockResponse up = MockResponse::sse_stream();
  const std::string head =
      R"(data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"up-model","system_fingerprint":"fp_1","choices":[{"index":0,"delta":)";
  up.chunk(
      head + R"({"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]})" +
      "\n\n" + head +
      R"({"content":"Hi"},"logprobs":{"content":[{"token":"Hi","logprob":-0.1,"bytes":[72,105],"top_logprobs":[]}],"refusal":null},"finish_reason":null}]})" +
      "\n\n" + head + R"({},"logprobs":null,"finish_reason":"stop"}]})" + "\n\ndata: [DONE]\n\n");
  upstream_.enqueue(std::move(up));
  RawClient c(gateway_->port());
  ASSERT_TRUE(c.send(http_post(
      "/v1/messages",
      R"({"model":"gpt-t","max_tokens":8,"stream":true,"messages":[{"role":"user","content":"hi"}]})",
      "anthropic-version: 2023-06-01\r\n")));
  auto r = c.read_response();
  ASSERT_TRUE(r.has_value());
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_NE(r->body.find("message_stop"), std::string::npos) << r->body;
  EXPECT_NE(r->body.find("\"Hi\""), std::string::npos) << r->body;
  json t = trace_of(get("/v1/traces"));
  auto models = spans(t, "model_call");
  ASSERT_EQ(models.size(), 1u) << t.dump(1);
  const json& a = models[0]["attributes"];
  ASSERT_TRUE(a.contains("toolwire.stream_warnings")) << t.dump(1);
  const std::string w = a["toolwire.stream_warnings"];
  EXPECT_NE(w.find("dropped_unknown_field ($.system_fingerprint)"), std::string::npos) << w;
  EXPECT_NE(w.find("dropped_unknown_field ($.choices[0].logprobs)"), std::string::npos) << w;
  EXPECT_EQ(t["status"], 200);
}

}  // namespace
}  // namespace toolwire::testing
