// The trace store on its own: bounds (count and bytes: the oldest go), a
// full queue drops (never blocks), the query parser's table of bad input,
// redaction; the compact record its rows keep the spans in.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "telemetry/store/spans_record.h"
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
  const std::string m = (*s)->metrics_text();
  EXPECT_NE(m.find("\ntoolwire_traces_written_total " + std::to_string(accepted) + "\n"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("\ntoolwire_traces_dropped_total " + std::to_string((*s)->dropped()) + "\n"),
            std::string::npos)
      << m;
}

TEST(TraceStore, GetByIdAndReopen) {
  TempDir d;
  std::string id, expected;
  {
    auto s = TraceStore::open({.path = (d.p / "t.db").string()});
    ASSERT_TRUE(s.ok());
    Trace t = make(1);
    t.key_name = "ci";
    id = t.trace_id;
    expected = t.to_json();
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
  // The row keeps the spans; get() gives back to_json()'s object, byte for byte.
  EXPECT_EQ((*got)->json, expected);
  EXPECT_FALSE((*s)->get(std::string(32, '0'))->has_value());
}

// Every summary field goes through the columns and back, text that needs
// escaping included, and the row holds the spans alone, as their compact
// record (spans_record.h).
TEST(TraceStore, ARowKeepsTheSpansAndGetGivesBackTheWholeTrace) {
  TempDir d;
  auto s = TraceStore::open({.path = (d.p / "t.db").string()});
  ASSERT_TRUE(s.ok());
  Trace t = Trace::begin("conductor_turn", "/v1/\"odd\"\npath");
  t.key_name = "k\\ey";
  t.model = "m\u00e9\"x";
  Span& a = t.add_span("chat m", "model_call");
  a.set("gen_ai.usage.input_tokens", int64_t{7});
  a.set("toolwire.latency_ms", 1.5);
  a.set("toolwire.stream", true);
  a.end(true, "upstream said \"no\"");
  t.add_span("execute_tool t", "tool_call").end();
  t.end(502);
  const std::string id = t.trace_id, expected = t.to_json(), spans = t.spans_json();
  ASSERT_TRUE((*s)->submit(std::move(t)));
  (*s)->flush();
  auto got = (*s)->get(id);
  ASSERT_TRUE(got.ok() && got->has_value());
  EXPECT_EQ((*got)->json, expected);
  EXPECT_EQ((*got)->key_name, "k\\ey");
  auto j = nlohmann::json::parse((*got)->json);
  EXPECT_EQ(j["name"], "/v1/\"odd\"\npath");
  EXPECT_EQ(j["status"], 502);
  EXPECT_EQ(j["error"], true);
  EXPECT_EQ(j["spans"].size(), 2u);

  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2((d.p / "t.db").string().c_str(), &db, SQLITE_OPEN_READONLY, nullptr),
            SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(db, "SELECT json, bytes FROM traces", -1, &st, nullptr);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  const std::string row(static_cast<const char*>(sqlite3_column_blob(st, 0)),
                        static_cast<size_t>(sqlite3_column_bytes(st, 0)));
  EXPECT_EQ(static_cast<unsigned char>(row.front()), kSpansRecordForm);
  EXPECT_EQ(*spans_record_json(row), spans);
  EXPECT_LT(row.size(), spans.size() / 2);
  EXPECT_EQ(sqlite3_column_int64(st, 1), static_cast<int64_t>(row.size()));
  sqlite3_finalize(st);
  sqlite3_close(db);
}

// A row as an earlier version wrote it: the summary in its columns, `json`
// (the spans' JSON array, or the whole object) beside them.
void insert_row_as_before(const std::string& path, const Trace& t, const std::string& json) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(db,
                     "INSERT INTO traces(id, start_us, kind, name, key_name, model, status, error, "
                     "duration_us, json, bytes) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                     -1, &st, nullptr);
  sqlite3_bind_text(st, 1, t.trace_id.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_int64(st, 2, t.start_us);
  sqlite3_bind_text(st, 3, t.kind.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(st, 4, t.name.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(st, 5, t.key_name.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(st, 6, t.model.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_int(st, 7, t.status);
  sqlite3_bind_int(st, 8, t.error ? 1 : 0);
  sqlite3_bind_int64(st, 9, t.duration_us);
  sqlite3_bind_text(st, 10, json.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_int64(st, 11, static_cast<int64_t>(json.size()));
  ASSERT_EQ(sqlite3_step(st), SQLITE_DONE);
  sqlite3_finalize(st);
  sqlite3_close(db);
}

// Rows written before the spans record hold their spans' JSON array, or
// (before that) the whole object: get() gives back to_json()'s object for
// both, and the key's name.
TEST(TraceStore, RowsFromBeforeTheRecordAreReadAsTheyWereWritten) {
  TempDir d;
  const std::string path = (d.p / "t.db").string();
  { ASSERT_TRUE(TraceStore::open({.path = path}).ok()); }  // creates the table
  Trace spans_row = make(4), whole_row = make(3);
  spans_row.key_name = whole_row.key_name = "old";
  insert_row_as_before(path, spans_row, spans_row.spans_json());
  insert_row_as_before(path, whole_row, whole_row.to_json());
  auto s = TraceStore::open({.path = path});
  ASSERT_TRUE(s.ok());
  for (const Trace* t : {&spans_row, &whole_row}) {
    auto got = (*s)->get(t->trace_id);
    ASSERT_TRUE(got.ok() && got->has_value());
    EXPECT_EQ((*got)->json, t->to_json());
    EXPECT_EQ((*got)->key_name, "old");
  }
}

// The record of every kind of value, names the table has and one it lacks,
// text that needs escaping, gives back spans_json()'s bytes; it is less than
// half their size for a gateway's model call.
TEST(SpansRecord, GivesBackTheSpansJsonByteForByte) {
  Trace t = Trace::begin("request", "/v1/messages");
  Span& a = t.add_span("chat claude-sonnet-4-5", "model_call");
  a.set("gen_ai.operation.name", "chat");
  a.set("gen_ai.request.model", "claude-sonnet-4-5");
  a.set("gen_ai.usage.input_tokens", int64_t{472});
  a.set("toolwire.attempts", int64_t{-3});
  a.set("toolwire.latency_ms", 98.389257);
  a.set("toolwire.time_to_first_byte_ms", -0.0);
  a.set("toolwire.stream", false);
  a.set("test.a_name_not_in_the_table", true);
  a.set("toolwire.output.text", std::string("quote \" backslash \\ nl \n \x01 \u00e9 \xff"));
  a.set("http.response.status_code", int64_t{INT64_MIN});
  a.end(true, "upstream said \"no\"");
  Span& b = t.add_span("", "");
  b.span_id.clear();
  b.start_us = -5;
  t.end(502);
  std::string record;
  append_spans_record(t.spans, record);
  EXPECT_EQ(*spans_record_json(record), t.spans_json());
  std::string none;
  append_spans_record({}, none);
  EXPECT_EQ(*spans_record_json(none), "[]");

  Trace g = Trace::begin("request", "/v1/chat/completions");
  Span& m = g.add_span("chat claude-sonnet-4-5", "model_call");
  m.set("gen_ai.operation.name", "chat");
  m.set("gen_ai.request.model", "claude-sonnet-4-5");
  m.set("gen_ai.provider.name", "anthropic");
  m.set("toolwire.route", "/v1/chat/completions");
  m.set("toolwire.upstream", "anthropic");
  m.set("toolwire.dialect.caller", "openai_chat");
  m.set("gen_ai.response.id", "msg_01Aq9w938a90dw8q");
  m.set("gen_ai.response.finish_reasons", "tool_use");
  m.set("toolwire.outcome", "ok");
  m.set("gen_ai.usage.input_tokens", int64_t{472});
  m.set("toolwire.latency_ms", 98.4);
  m.end();
  std::string small;
  append_spans_record(g.spans, small);
  EXPECT_LT(small.size() * 2, g.spans_json().size());
}

// Bytes that are not a record give an error, never a crash or a read past
// the end: every cut of a good record, a bad tag, a name that would need
// escaping, a count larger than the bytes, bytes left over.
TEST(SpansRecord, BadBytesAreAnErrorNotACrash) {
  Trace t = Trace::begin("request", "/v1/messages");
  Span& a = t.add_span("chat m", "model_call");
  a.set("gen_ai.request.model", "m");
  a.set("test.unlisted", 1.5);
  a.set("toolwire.stream", true);
  a.end();
  std::string record;
  append_spans_record(t.spans, record);
  ASSERT_TRUE(spans_record_json(record).ok());
  for (size_t n = 0; n < record.size(); ++n) {
    auto r = spans_record_json(std::string_view(record).substr(0, n));
    EXPECT_FALSE(r.ok()) << "cut at " << n;
    if (!r.ok()) {
      EXPECT_NE(r.error().message.find("stored trace"), std::string::npos);
    }
  }
  EXPECT_FALSE(spans_record_json(record + "x").ok());
  EXPECT_FALSE(spans_record_json("[]").ok());
  EXPECT_FALSE(spans_record_json(std::string("\x01\xff\xff\xff\xff\x0f", 6)).ok());
  // One span, empty fields, one attribute named by a bad inline name / a bad tag.
  const std::string head("\x01\x01\x00\x00\x00\x00\x00\x00\x00\x01", 10);
  EXPECT_FALSE(spans_record_json(head + std::string("\x00\x02"
                                                    "a\"\x03",
                                                    5))
                   .ok());
  EXPECT_TRUE(spans_record_json(head + std::string("\x00\x02"
                                                   "ab\x03",
                                                   5))
                  .ok());
  EXPECT_FALSE(spans_record_json(head + std::string("\x01\x09", 2)).ok());
  EXPECT_FALSE(spans_record_json(head + std::string("\x7f\x03", 2)).ok());
}

// A file written before rows kept only their spans holds whole objects:

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
