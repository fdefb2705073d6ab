// The trace store on its own: bounds (count and bytes: the oldest go), a
// full queue drops (never blocks), the query parser's table of bad input,
// redaction.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "toolwire/telemetry/trace_store.h"

namespace toolwire::telemetry {
namespace {

namespace fs = std::filesystem;

Trace make(int i, size_t pad = 0) {
  Trace t = Trace::begin("request", "openai.chat");
  t.model = "m" + std::to_string(i);
  Span& s = t.add_span("chat m", "model_call");
  s.set("pad", std::string(pad, 'x'));
  s.end();
  t.end(200);
  return t;
}

struct TempDir {
  fs::path p =
      fs::temp_directory_path() / ("tw-store-" + std::to_string(::getpid()) + "-" +
                                   ::testing::UnitTest::GetInstance()->current_test_info()->name());
  TempDir() { fs::remove_all(p); }
  ~TempDir() { fs::remove_all(p); }
};

size_t count(const TraceStore& s) {
  TraceQuery q;
  q.limit = 1000;
  return nlohmann::json::parse(*s.list(q))["traces"].size();
}

TEST(TraceStore, OldestGoPastTheCount) {
  TempDir d;
  auto s = TraceStore::open({.path = (d.p / "t.db").string(), .max_traces = 10});
  ASSERT_TRUE(s.ok()) << s.error().to_string();
  for (int i = 0; i < 25; ++i) ASSERT_TRUE((*s)->submit(make(i)));
  (*s)->flush();
  EXPECT_EQ(count(**s), 10u);
  TraceQuery q;
  q.limit = 1;
  auto newest = nlohmann::json::parse(*(*s)->list(q));
  EXPECT_EQ(newest["traces"][0]["model"], "m24");
  q.model = "m0";
  EXPECT_EQ(nlohmann::json::parse(*(*s)->list(q))["traces"].size(), 0u);
}

TEST(TraceStore, OldestGoPastTheBytes) {
  TempDir d;
  auto s = TraceStore::open({.path = (d.p / "t.db").string(), .max_bytes = 40'000});
  ASSERT_TRUE(s.ok());
  for (int i = 0; i < 20; ++i) ASSERT_TRUE((*s)->submit(make(i, 10'000)));
  (*s)->flush();
  size_t n = count(**s);
  EXPECT_GE(n, 1u);
  EXPECT_LE(n, 4u);
}

TEST(TraceStore, AFullQueueDropsAndNeverBlocks) {
  TempDir d;
  auto s = TraceStore::open({.path = (d.p / "t.db").string(), .max_queued = 4});
  ASSERT_TRUE(s.ok());
  size_t accepted = 0;
  for (int i = 0; i < 2000; ++i) accepted += (*s)->submit(make(i)) ? 1 : 0;
  (*s)->flush();
  EXPECT_EQ(accepted + (*s)->dropped(), 2000u);
  EXPECT_EQ((*s)->written(), accepted);
  EXPECT_GT((*s)->dropped(), 0u);
}

TEST(TraceStore, GetByIdAndReopen) {
  TempDir d;
  std::string id;
  {
    auto s = TraceStore::open({.path = (d.p / "t.db").string()});
    ASSERT_TRUE(s.ok());
    Trace t = make(1);
    t.key_name = "ci";
    id = t.trace_id;
    (*s)->submit(std::move(t));
  }  // closing writes what is queued
  auto s = TraceStore::open({.path = (d.p / "t.db").string()});
  ASSERT_TRUE(s.ok());
  auto got = (*s)->get(id);
  ASSERT_TRUE(got.ok());
  ASSERT_TRUE(got->has_value());
  EXPECT_EQ((*got)->key_name, "ci");
  auto j = nlohmann::json::parse((*got)->json);
  EXPECT_EQ(j["spans"][0]["kind"], "model_call");
  EXPECT_FALSE((*s)->get(std::string(32, '0'))->has_value());
}

TEST(TraceStore, AnUnopenablePathIsAnError) {
  auto s = TraceStore::open({.path = "/proc/definitely/not/here/t.db"});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("traces"), std::string::npos);
}

TEST(TraceQueryParse, GoodAndBad) {
  auto q = parse_trace_query("key=ci%20runner&model=gpt-4o&status=502&errors=true&limit=7");
  ASSERT_TRUE(q.ok()) << q.error().to_string();
  EXPECT_EQ(q->key, "ci runner");
  EXPECT_EQ(q->model, "gpt-4o");
  EXPECT_EQ(q->status, 502);
  EXPECT_TRUE(q->errors_only);
  EXPECT_EQ(q->limit, 7u);
  EXPECT_TRUE(parse_trace_query("").ok());
  EXPECT_TRUE(parse_trace_query("&&limit=1&").ok());
  struct Bad {
    std::string q, says;
  } bad[] = {{"limit=0", "limit"},
             {"limit=1001", "limit"},
             {"limit=", "limit"},
             {"limit=1x", "limit"},
             {"status=99", "status"},
             {"status=-1", "status"},
             {"errors=yes", "errors"},
             {"what=1", "unknown parameter"},
             {"key=a&key=b", "given twice"},
             {"key=%4", "hex"},
             {"key=%g0", "hex"},
             {"model=%00", "control"},
             {"key=" + std::string(300, 'a'), "256"},
             {std::string(10000, 'x') + "=1", "unknown parameter"}};
  for (const auto& b : bad) {
    auto r = parse_trace_query(b.q);
    ASSERT_FALSE(r.ok()) << b.q;
    EXPECT_NE(r.error().message.find(b.says), std::string::npos) << r.error().message;
    EXPECT_LT(r.error().message.size(), 400u);
  }
}

TEST(Redact, KeyShapesAndTokens) {
  EXPECT_EQ(redact("key sk-proj-abcdefghijklmnop and more"), "key [redacted] and more");
  EXPECT_EQ(redact("Authorization: Bearer abcdefgh12345"), "Authorization: [redacted]");
  EXPECT_EQ(redact("AKIAABCDEFGHIJKLMNOP"), "[redacted]");
  EXPECT_EQ(redact("task-sk-not-a-key"), "task-sk-not-a-key");
  EXPECT_EQ(redact("sk-short"), "sk-short");
  EXPECT_EQ(redact(""), "");
}

}  // namespace
}  // namespace toolwire::telemetry
