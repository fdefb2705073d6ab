// The OTLP export's pieces: the protobuf writer byte for byte, a trace
// mapped and encoded, then read back with a small wire-format decoder here
// (the end-to-end test decodes with the official definitions:
// otlp_export.test.mjs); the endpoint URL rules; the sender against a mock
// collector (batches, headers, retries of a 503) and its bounded queue
// (a full queue drops at once, never blocks).
#include <gtest/gtest.h>

#include <cstring>
#include <map>

#include "mock_http_server.h"
#include "telemetry/otlp/encode.h"
#include "telemetry/otlp/protobuf_writer.h"
#include "telemetry/otlp/span_map.h"
#include "toolwire/telemetry/otlp_exporter.h"

namespace toolwire::telemetry {
namespace {

using otlp::ProtoWriter;
using testing::MockHttpServer;
using testing::MockResponse;

// A protobuf message as its fields: number → values (varints as numbers,
// fixed64 as their bits, length-delimited as bytes).
struct Field {
  uint64_t number = 0;  // varint or fixed64
  std::string bytes;    // length-delimited
};
using Message = std::multimap<uint32_t, Field>;

bool read_varint(std::string_view& in, uint64_t& v) {
  v = 0;
  for (int shift = 0; shift < 64 && !in.empty(); shift += 7) {
    auto b = static_cast<unsigned char>(in.front());
    in.remove_prefix(1);
    v |= uint64_t{b & 0x7fu} << shift;
    if (!(b & 0x80)) return true;
  }
  return false;
}

Message decode(std::string_view in) {
  Message m;
  while (!in.empty()) {
    uint64_t key = 0;
    EXPECT_TRUE(read_varint(in, key));
    Field f;
    switch (key & 7) {
      case 0:
        EXPECT_TRUE(read_varint(in, f.number));
        break;
      case 1:
        EXPECT_GE(in.size(), 8u);
        for (int i = 7; i >= 0; --i) f.number = (f.number << 8) | static_cast<uint8_t>(in[i]);
        in.remove_prefix(8);
        break;
      case 2: {
        uint64_t len = 0;
        EXPECT_TRUE(read_varint(in, len));
        EXPECT_LE(len, in.size());
        f.bytes = std::string(in.substr(0, len));
        in.remove_prefix(len);
        break;
      }
      default:
        ADD_FAILURE() << "unexpected wire type " << (key & 7);
        return m;
    }
    m.emplace(static_cast<uint32_t>(key >> 3), f);
  }
  return m;
}

std::vector<Message> all(const Message& m, uint32_t field) {
  std::vector<Message> out;
  auto [b, e] = m.equal_range(field);
  for (auto it = b; it != e; ++it) out.push_back(decode(it->second.bytes));
  return out;
}
Message one(const Message& m, uint32_t field) {
  auto v = all(m, field);
  EXPECT_EQ(v.size(), 1u) << "field " << field;
  return v.empty() ? Message{} : v[0];
}
std::string str(const Message& m, uint32_t field) {
  auto it = m.find(field);
  return it == m.end() ? "" : it->second.bytes;
}
uint64_t num(const Message& m, uint32_t field) {
  auto it = m.find(field);
  return it == m.end() ? 0 : it->second.number;
}
// KeyValue list → key → AnyValue message.
std::map<std::string, Message> attributes(const Message& m, uint32_t field) {
  std::map<std::string, Message> out;
  for (const auto& kv : all(m, field)) out[str(kv, 1)] = one(kv, 2);
  return out;
}

std::string hex(std::string_view bytes) {
  static const char* d = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) (out += d[c >> 4]) += d[c & 15];
  return out;
}

TEST(OtlpProtobuf, WriterBytesAreExact) {
  std::string out;
  ProtoWriter w(out);
  w.int_field(1, 150);  // the protobuf documentation's example: 08 96 01
  w.bytes_field(2, "testing");
  w.int_field(3, -1);  // ten bytes
  w.fixed64_field(4, 1);
  w.int_field(5, 0);             // a default: left out
  w.bool_field(6, false, true);  // a oneof member: kept
  w.message(7, [](ProtoWriter& m) { m.bytes_field(1, "x"); });
  EXPECT_EQ(hex(out),
            "089601"
            "120774657374696e67"
            "18ffffffffffffffffff01"
            "210100000000000000"
            "3000"
            "3a030a0178");
}

Trace sample() {
  Trace t = Trace::begin("request", "/v1/chat/completions");
  t.model = "gpt-4o";
  t.key_name = "ci";
  Span& m = t.add_span("chat gpt-4o", "model_call");
  m.set("gen_ai.operation.name", std::string("chat"));
  m.set("gen_ai.request.model", std::string("gpt-4o"));
  m.set("gen_ai.provider.name", std::string("gemini"));
  m.set("gen_ai.usage.input_tokens", int64_t{12});
  m.set("gen_ai.response.finish_reasons", std::string("tool_calls"));
  m.set("toolwire.stream", false);
  m.set("toolwire.latency_ms", 1.5);
  m.end();
  Span& tool = t.add_span("execute_tool read", "tool_call");
  tool.set("gen_ai.operation.name", std::string("execute_tool"));
  tool.set("gen_ai.tool.name", std::string("read"));
  tool.set("gen_ai.tool.call.id", std::string("call_1"));
  tool.set("toolwire.tool.outcome", std::string("timeout"));
  tool.set("gen_ai.tool.call.arguments", std::string(""));
  tool.end(true, "the tool timed out");
  t.end(502);
  return t;
}

TEST(OtlpProtobuf, TraceRoundTrips) {
  Trace t = sample();
  auto spans = otlp::map_trace(t);
  Message req = decode(otlp::encode_export_request(spans, "svc"));
  Message rs = one(req, 1);
  auto res = attributes(one(rs, 1), 1);
  EXPECT_EQ(str(res["service.name"], 1), "svc");
  Message ss = one(rs, 2);
  EXPECT_EQ(str(one(ss, 1), 1), "toolwire");
  auto got = all(ss, 2);
  ASSERT_EQ(got.size(), 3u);

  const Message& root = got[0];
  EXPECT_EQ(hex(str(root, 1)), t.trace_id);
  EXPECT_EQ(str(root, 2).size(), 8u);
  EXPECT_EQ(str(root, 4), "");  // no parent
  EXPECT_EQ(str(root, 5), "POST /v1/chat/completions");
  EXPECT_EQ(num(root, 6), 2u);  // SERVER
  EXPECT_EQ(num(root, 7), static_cast<uint64_t>(t.start_us) * 1000);
  EXPECT_EQ(num(root, 8), static_cast<uint64_t>(t.start_us + t.duration_us) * 1000);
  auto ra = attributes(root, 9);
  EXPECT_EQ(num(ra["http.response.status_code"], 3), 502u);
  EXPECT_EQ(str(ra["toolwire.key_name"], 1), "ci");
  EXPECT_EQ(str(ra["error.type"], 1), "502");
  EXPECT_EQ(num(one(root, 15), 3), 2u);  // STATUS_CODE_ERROR

  const Message& model = got[1];
  EXPECT_EQ(str(model, 1), str(root, 1));
  EXPECT_EQ(hex(str(model, 2)), t.spans[0].span_id);
  EXPECT_EQ(str(model, 4), str(root, 2));
  EXPECT_EQ(str(model, 5), "chat gpt-4o");
  EXPECT_EQ(num(model, 6), 3u);  // CLIENT
  auto ma = attributes(model, 9);
  EXPECT_EQ(str(ma["gen_ai.provider.name"], 1), "gcp.gemini");
  EXPECT_EQ(num(ma["gen_ai.usage.input_tokens"], 3), 12u);
  auto reasons = all(one(ma["gen_ai.response.finish_reasons"], 5), 1);
  ASSERT_EQ(reasons.size(), 1u);
  EXPECT_EQ(str(reasons[0], 1), "tool_calls");
  ASSERT_EQ(ma["toolwire.stream"].count(2), 1u);  // bool false still written
  EXPECT_EQ(num(ma["toolwire.stream"], 2), 0u);
  double ms = 0;
  uint64_t bits = num(ma["toolwire.latency_ms"], 4);
  std::memcpy(&ms, &bits, sizeof ms);
  EXPECT_EQ(ms, 1.5);
  EXPECT_EQ(str(ma["toolwire.route"], 1), "/v1/chat/completions");
  EXPECT_EQ(model.count(15), 0u);  // ok: no status

  const Message& tool = got[2];
  EXPECT_EQ(str(tool, 5), "execute_tool read");
  EXPECT_EQ(num(tool, 6), 1u);  // INTERNAL
  auto ta = attributes(tool, 9);
  EXPECT_EQ(str(ta["gen_ai.tool.call.id"], 1), "call_1");
  EXPECT_EQ(str(ta["error.type"], 1), "timeout");
  ASSERT_EQ(ta["gen_ai.tool.call.arguments"].count(1), 1u);  // "" still a string
  Message st = one(tool, 15);
  EXPECT_EQ(num(st, 3), 2u);
  EXPECT_EQ(str(st, 2), "the tool timed out");
}

TEST(OtlpMapping, ConductorTurnIsAnAgentInvocation) {
  Trace t = Trace::begin("conductor_turn", "conductor");
  t.end(200);
  auto spans = otlp::map_trace(t);
  ASSERT_EQ(spans.size(), 1u);
  EXPECT_EQ(spans[0].name, "invoke_agent conductor");
  EXPECT_EQ(spans[0].kind, otlp::SpanKind::server);
  EXPECT_EQ(spans[0].status, otlp::StatusCode::unset);
  // A bad id (not 16 hex digits) is replaced, never sent short.
  Trace bad = Trace::begin("request", "/v1/messages");
  bad.trace_id = "xyz";
  bad.add_span("chat m", "model_call").span_id = "nothex!!";
  bad.end(200);
  auto b = otlp::map_trace(bad);
  EXPECT_EQ(b[0].trace_id.size(), 16u);
  EXPECT_EQ(b[1].span_id.size(), 8u);
}

TEST(OtlpEndpoint, Urls) {
  struct Case {
    const char* in;
    const char* out;  // nullptr: an error
  };
  for (const Case& c : std::initializer_list<Case>{
           {"http://127.0.0.1:4318", "http://127.0.0.1:4318/v1/traces"},
           {"http://collector:4318/", "http://collector:4318/v1/traces"},
           {"https://otel.example/v1/traces", "https://otel.example/v1/traces"},
           {"https://otel.example/otlp/", "https://otel.example/otlp/v1/traces"},
           {"HTTP://[::1]:4318", "HTTP://[::1]:4318/v1/traces"},
           {"collector:4318", nullptr},
           {"grpc://collector:4317", nullptr},
           {"http://", nullptr},
           {"http://:4318", nullptr},
           {"http://h:0", nullptr},
           {"http://h:65536", nullptr},
           {"http://h:12x", nullptr},
           {"http://h:", nullptr},
           {"http://user:pw@h", nullptr},
           {"http://h/v1/traces?x=1", nullptr},
           {"http://h /x", nullptr},
           {"http://[::1", nullptr},
       }) {
    auto r = otlp_traces_url(c.in);
    if (c.out) {
      ASSERT_TRUE(r.ok()) << c.in << ": " << r.error().message;
      EXPECT_EQ(*r, c.out);
    } else {
      ASSERT_FALSE(r.ok()) << c.in << " gave " << *r;
      EXPECT_EQ(r.error().message.find("pw"), std::string::npos);
    }
  }
  EXPECT_EQ(otlp_header_problem("authorization", "Bearer x"), "");
  EXPECT_NE(otlp_header_problem("bad name", "x"), "");
  EXPECT_NE(otlp_header_problem("x", "a\r\nb: c"), "");
  EXPECT_NE(otlp_header_problem("", "x"), "");
}

Trace small(int spans) {
  Trace t = Trace::begin("request", "/v1/chat/completions");
  for (int i = 0; i < spans; ++i) t.add_span("chat m", "model_call").end();
  t.end(200);
  return t;
}

TEST(OtlpExporter, SendsBatchesWithItsHeadersAndRetries) {
  MockHttpServer collector;
  collector.enqueue(MockResponse(503).body(""));  // retried by the transport
  collector.set_handler([](const testing::MockRequest&) { return MockResponse(200).body(""); });
  auto exp = OtlpExporter::start({.url = collector.url("/v1/traces"),
                                  .headers = {{"x-tenant", "t1"}},
                                  .batch_size = 4,
                                  .flush_interval = std::chrono::milliseconds(60000)});
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(exp->submit(small(1)));  // 2 spans each: 2 batches
  ASSERT_TRUE(exp->flush(std::chrono::milliseconds(10000)));
  auto reqs = collector.requests();
  ASSERT_EQ(reqs.size(), 3u);  // the 503, then two batches
  for (const auto& r : reqs) {
    EXPECT_EQ(r.method, "POST");
    EXPECT_EQ(r.target, "/v1/traces");
    EXPECT_EQ(r.header("content-type").value_or(""), "application/x-protobuf");
    EXPECT_EQ(r.header("x-tenant").value_or(""), "t1");
  }
  size_t spans = 0;
  for (size_t i = 1; i < reqs.size(); ++i)
    spans += all(one(one(decode(reqs[i].body), 1), 2), 2).size();
  EXPECT_EQ(spans, 8u);
  auto c = exp->counters();
  EXPECT_EQ(c.spans_exported, 8u);
  EXPECT_EQ(c.export_failures, 0u);
}

TEST(OtlpExporter, FullQueueDropsWithoutWaiting) {
  MockHttpServer collector;
  // The first batch stays in flight (no answer) until release().
  collector.enqueue(
      MockResponse::raw("").hold().write("HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n"));
  collector.set_handler([](const testing::MockRequest&) { return MockResponse(200).body(""); });
  auto exp = OtlpExporter::start({.url = collector.url("/v1/traces"),
                                  .batch_size = 2,
                                  .flush_interval = std::chrono::milliseconds(1),
                                  .queue_limit = 4,
                                  .shutdown_timeout = std::chrono::milliseconds(200)});
  EXPECT_TRUE(exp->submit(small(1)));
  ASSERT_TRUE(collector.wait_for_requests(1));  // the sender is now held
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_TRUE(exp->submit(small(1)));
  EXPECT_TRUE(exp->submit(small(1)));
  EXPECT_FALSE(exp->submit(small(1)));  // 6 spans > 4
  EXPECT_FALSE(exp->submit(small(3)));
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(500));
  EXPECT_EQ(exp->counters().spans_dropped_queue, 6u);
  collector.release();
  EXPECT_TRUE(exp->flush(std::chrono::milliseconds(10000)));
  EXPECT_EQ(exp->counters().spans_exported, 6u);
  EXPECT_EQ(exp->counters().export_failures, 0u);
}

TEST(OtlpExporter, UnreachableCollectorCountsFailuresAndShutsDownInTime) {
  MockHttpServer gone;
  const std::string url = gone.url("/v1/traces");
  gone.stop();  // nothing listens there now
  auto t0 = std::chrono::steady_clock::now();
  {
    auto exp = OtlpExporter::start({.url = url,
                                    .batch_size = 100,
                                    .flush_interval = std::chrono::milliseconds(1),
                                    .timeout = std::chrono::milliseconds(1000),
                                    .max_attempts = 2});
    EXPECT_TRUE(exp->submit(small(2)));
    EXPECT_TRUE(exp->flush(std::chrono::milliseconds(10000)));
    auto c = exp->counters();
    EXPECT_EQ(c.export_failures, 1u);
    EXPECT_EQ(c.spans_dropped_failed, 3u);
    EXPECT_EQ(c.spans_exported, 0u);
    EXPECT_NE(otlp_metrics_text(c).find("toolwire_otlp_export_failures_total 1\n"),
              std::string::npos);
  }
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(8));
}

}  // namespace
}  // namespace toolwire::telemetry
