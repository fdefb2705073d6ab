// TraceStore: a queue, one writer thread, SQLite (WAL), oldest dropped.
#include "toolwire/telemetry/trace_store.h"

#include <sqlite3.h>

#include <condition_variable>
#include <deque>
#include <filesystem>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "telemetry/store/spans_record.h"
#include "telemetry/store/stats.h"

namespace toolwire::telemetry {
namespace {

constexpr size_t kBatch = 1024;
// After a trace arrives the writer waits this long for more, so that a busy
// gateway's traces go in a few transactions a second, not one each.
constexpr auto kGather = std::chrono::milliseconds(250);

struct Db {
  sqlite3* db = nullptr;
  ~Db() {
    if (db) sqlite3_close(db);
  }
};

struct Stmt {
  sqlite3_stmt* s = nullptr;
  ~Stmt() {
    if (s) sqlite3_finalize(s);
  }
};

Error db_error(sqlite3* db, std::string_view what) {
  return make_error(ErrorCode::unavailable, "traces: " + std::string(what) + ": " +
                                                (db ? sqlite3_errmsg(db) : "no database"));
}

Status exec(sqlite3* db, const char* sql) {
  char* err = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    std::string m = err ? err : "error";
    sqlite3_free(err);
    return make_error(ErrorCode::unavailable, std::string("traces: ") + m);
  }
  return Status::Ok();
}

Status open_db(const std::string& path, int flags, Db& out) {
  if (sqlite3_open_v2(path.c_str(), &out.db, flags | SQLITE_OPEN_FULLMUTEX, nullptr) != SQLITE_OK)
    return db_error(out.db, "cannot open " + path);
  sqlite3_busy_timeout(out.db, 2000);
  return Status::Ok();
}

void bind_text(sqlite3_stmt* s, int i, const std::string& v) {
  sqlite3_bind_text(s, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
}

// Without a copy: `v` must outlive the statement's next step (the writer's
// binds: the trace and its JSON live until the row is in).
void bind_static(sqlite3_stmt* s, int i, std::string_view v) {
  sqlite3_bind_text(s, i, v.data(), static_cast<int>(v.size()), SQLITE_STATIC);
}

// The tokens of a trace's model calls, in and out (the stats' columns).
std::pair<int64_t, int64_t> tokens(const Trace& t) {
  std::pair<int64_t, int64_t> sum{0, 0};
  for (const Span& s : t.spans) {
    if (s.kind != "model_call") continue;
    if (const auto* v = s.get("gen_ai.usage.input_tokens");
        v && std::holds_alternative<int64_t>(*v))
      sum.first += std::get<int64_t>(*v);
    if (const auto* v = s.get("gen_ai.usage.output_tokens");
        v && std::holds_alternative<int64_t>(*v))
      sum.second += std::get<int64_t>(*v);
  }
  return sum;
}

}  // namespace

struct TraceStore::Impl {
  TraceStoreOptions options;
  Db writer, reader;
  mutable std::mutex mu;
  std::condition_variable wake, idle;
  std::deque<Trace> queue;
  bool stopping = false, busy = false;
  int flushing = 0;  // callers of flush() waiting: no gathering
  uint64_t dropped = 0, written = 0;
  int64_t rows = 0, bytes = 0;  // in the table (the writer's count: no scan per batch)
  std::thread thread;

  void run() {
    std::unique_lock lock(mu);
    for (;;) {
      wake.wait(lock, [&] { return stopping || !queue.empty(); });
      if (queue.empty() && stopping) return;
      if (!stopping && !flushing && queue.size() < kBatch)
        wake.wait_for(lock, kGather,
                      [&] { return stopping || flushing || queue.size() >= kBatch; });
      std::vector<Trace> batch;
      while (!queue.empty() && batch.size() < kBatch) {
        batch.push_back(std::move(queue.front()));
        queue.pop_front();
      }
      busy = true;
      lock.unlock();
      write(batch);
      lock.lock();
      busy = false;
      written += batch.size();
      if (queue.empty()) idle.notify_all();
    }
  }

  // One transaction per batch; a failed write loses the batch, never the gateway.
  void write(const std::vector<Trace>& batch) {
    sqlite3* db = writer.db;
    if (!exec(db, "BEGIN").ok()) return;
    Stmt ins;
    sqlite3_prepare_v2(db,
                       "INSERT INTO traces(id, start_us, kind, name, key_name, model, "
                       "status, error, duration_us, spans, bytes, json, input_tokens, "
                       "output_tokens) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                       -1, &ins.s, nullptr);
    std::string record;
    for (const Trace& t : batch) {
      // The spans only, in their compact record (spans_record.h): the
      // summary is in the columns, and get() puts the JSON object back
      // together. SQLite's cost per insert follows the row's size: a third
      // of the spans' JSON.
      record.clear();
      append_spans_record(t.spans, record);
      sqlite3_reset(ins.s);
      bind_static(ins.s, 1, t.trace_id);
      sqlite3_bind_int64(ins.s, 2, t.start_us);
      bind_static(ins.s, 3, t.kind);
      bind_static(ins.s, 4, t.name);
      bind_static(ins.s, 5, t.key_name);
      bind_static(ins.s, 6, t.model);
      sqlite3_bind_int(ins.s, 7, t.status);
      sqlite3_bind_int(ins.s, 8, t.error ? 1 : 0);
      sqlite3_bind_int64(ins.s, 9, t.duration_us);
      sqlite3_bind_int(ins.s, 10, static_cast<int>(t.spans.size()));
      sqlite3_bind_int64(ins.s, 11, static_cast<int64_t>(record.size()));
      sqlite3_bind_blob(ins.s, 12, record.data(), static_cast<int>(record.size()), SQLITE_STATIC);
      auto [in, out] = tokens(t);
      sqlite3_bind_int64(ins.s, 13, in);
      sqlite3_bind_int64(ins.s, 14, out);
      if (sqlite3_step(ins.s) == SQLITE_DONE) {
        ++rows;
        bytes += static_cast<int64_t>(record.size());
      }
    }
    trim();
    if (!exec(db, "COMMIT").ok()) (void)exec(db, "ROLLBACK");
  }

  // The oldest rows go while there are too many, or too many bytes; past a
  // bound, a tenth at a time (one delete, not one per row).
  void trim() {
    sqlite3* db = writer.db;
    const auto max_rows = static_cast<int64_t>(options.max_traces);
    const auto max_bytes = static_cast<int64_t>(options.max_bytes);
    while (rows > 0 && (rows > max_rows || bytes > max_bytes)) {
      int64_t n = std::max<int64_t>(rows - max_rows, 0);
      if (bytes > max_bytes) n = std::max<int64_t>(n, std::max<int64_t>(1, rows / 10));
      Stmt oldest;  // the last rowid and the bytes of the n oldest rows
      sqlite3_prepare_v2(db,
                         "SELECT MAX(rowid), COUNT(*), COALESCE(SUM(bytes),0) FROM "
                         "(SELECT rowid, bytes FROM traces ORDER BY rowid LIMIT ?)",
                         -1, &oldest.s, nullptr);
      sqlite3_bind_int64(oldest.s, 1, n);
      if (sqlite3_step(oldest.s) != SQLITE_ROW) return;
      const int64_t last = sqlite3_column_int64(oldest.s, 0);
      const int64_t count = sqlite3_column_int64(oldest.s, 1);
      const int64_t freed = sqlite3_column_int64(oldest.s, 2);
      if (count == 0) return recount();
      Stmt del;
      sqlite3_prepare_v2(db, "DELETE FROM traces WHERE rowid <= ?", -1, &del.s, nullptr);
      sqlite3_bind_int64(del.s, 1, last);
      if (sqlite3_step(del.s) != SQLITE_DONE) return;
      rows -= count;
      bytes -= freed;
    }
  }

  // The table's real counts (at open, and when they may have drifted).
  void recount() {
    Stmt count;
    sqlite3_prepare_v2(writer.db, "SELECT COUNT(*), COALESCE(SUM(bytes),0) FROM traces", -1,
                       &count.s, nullptr);
    if (sqlite3_step(count.s) != SQLITE_ROW) return;
    rows = sqlite3_column_int64(count.s, 0);
    bytes = sqlite3_column_int64(count.s, 1);
  }
};

Result<std::unique_ptr<TraceStore>> TraceStore::open(TraceStoreOptions options) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path folder = fs::path(options.path).parent_path();
  if (!folder.empty()) fs::create_directories(folder, ec);
  auto impl = std::make_unique<Impl>();
  impl->options = std::move(options);
  TW_TRY(open_db(impl->options.path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, impl->writer));
  TW_TRY(exec(impl->writer.db,
              // Diagnostics, not records: a power cut may lose the last
              // batches (WAL keeps the file whole), no write waits for the disk.
              // A 2 MB page cache holds a full batch (1,024 traces of about
              // 1.3 KB); 8 MB held 7 MB more resident under load for nothing:
              // the writer appends, and the trim reads the oldest pages once.
              "PRAGMA journal_mode=WAL; PRAGMA synchronous=OFF; PRAGMA cache_size=-2048;"
              "CREATE TABLE IF NOT EXISTS traces(id TEXT PRIMARY KEY, start_us INTEGER, kind TEXT,"
              " name TEXT, key_name TEXT, model TEXT, status INTEGER, error INTEGER,"
              " duration_us INTEGER, spans INTEGER, input_tokens INTEGER NOT NULL DEFAULT 0,"
              " output_tokens INTEGER NOT NULL DEFAULT 0, bytes INTEGER, json TEXT);"));
  // A file from before the token columns: they are added (its rows count 0).
  if (Stmt probe; sqlite3_prepare_v2(impl->writer.db, "SELECT input_tokens FROM traces LIMIT 0", -1,
                                     &probe.s, nullptr) != SQLITE_OK)
    TW_TRY(exec(impl->writer.db,
                "ALTER TABLE traces ADD COLUMN input_tokens INTEGER NOT NULL DEFAULT 0;"
                "ALTER TABLE traces ADD COLUMN output_tokens INTEGER NOT NULL DEFAULT 0;"));
  // No index but the id's: the filters scan at most max_traces rows (an
  // admin's read), while every index would cost each write.
  TW_TRY(open_db(impl->options.path, SQLITE_OPEN_READONLY, impl->reader));
  impl->recount();
  impl->thread = std::thread([p = impl.get()] { p->run(); });
  return std::unique_ptr<TraceStore>(new TraceStore(std::move(impl)));
}

TraceStore::TraceStore(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

TraceStore::~TraceStore() {
  {
    std::lock_guard lock(impl_->mu);
    impl_->stopping = true;
  }
  impl_->wake.notify_all();
  impl_->thread.join();
}

bool TraceStore::submit(Trace t) {
  {
    std::lock_guard lock(impl_->mu);
    if (impl_->stopping || impl_->queue.size() >= impl_->options.max_queued) {
      ++impl_->dropped;
      return false;
    }
    impl_->queue.push_back(std::move(t));
    // The writer sleeps until the queue is not empty, then gathers for a
    // while or until a batch is full: only those two moments wake it (no
    // wake-up, so no context switch, per request).
    const size_t n = impl_->queue.size();
    if (n != 1 && n != kBatch) return true;
  }
  impl_->wake.notify_one();
  return true;
}

void TraceStore::flush() {
  std::unique_lock lock(impl_->mu);
  ++impl_->flushing;
  impl_->wake.notify_all();
  impl_->idle.wait_for(lock, std::chrono::seconds(10),
                       [&] { return impl_->queue.empty() && !impl_->busy; });
  --impl_->flushing;
}

uint64_t TraceStore::dropped() const {
  std::lock_guard lock(impl_->mu);
  return impl_->dropped;
}

uint64_t TraceStore::written() const {
  std::lock_guard lock(impl_->mu);
  return impl_->written;
}

std::string TraceStore::metrics_text() const {
  uint64_t written_n, dropped_n;
  {
    std::lock_guard lock(impl_->mu);
    written_n = impl_->written;
    dropped_n = impl_->dropped;
  }
  return "# HELP toolwire_traces_written_total Traces the store wrote.\n"
         "# TYPE toolwire_traces_written_total counter\n"
         "toolwire_traces_written_total " +
         std::to_string(written_n) +
         "\n# HELP toolwire_traces_dropped_total Traces dropped because the writer's queue was "
         "full.\n"
         "# TYPE toolwire_traces_dropped_total counter\n"
         "toolwire_traces_dropped_total " +
         std::to_string(dropped_n) + "\n";
}

Result<std::string> TraceStore::list(const TraceQuery& q) const {
  sqlite3* db = impl_->reader.db;
  Stmt s;
  if (sqlite3_prepare_v2(db,
                         "SELECT id, kind, name, key_name, model, status, error, start_us, "
                         "duration_us, spans, input_tokens, output_tokens FROM traces WHERE (?1 = "
                         "'' OR key_name = ?1) AND "
                         "(?2 = '' OR model = ?2) AND (?3 = 0 OR status = ?3) AND (?4 = 0 OR "
                         "error = 1) ORDER BY rowid DESC LIMIT ?5",
                         -1, &s.s, nullptr) != SQLITE_OK)
    return db_error(db, "query");
  bind_text(s.s, 1, q.key);
  bind_text(s.s, 2, q.model);
  sqlite3_bind_int(s.s, 3, q.status);
  sqlite3_bind_int(s.s, 4, q.errors_only ? 1 : 0);
  sqlite3_bind_int64(s.s, 5, static_cast<int64_t>(q.limit));
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  auto text = [&](int col) {
    const auto* p = sqlite3_column_text(s.s, col);
    return p ? std::string(reinterpret_cast<const char*>(p)) : std::string();
  };
  int rc;
  while ((rc = sqlite3_step(s.s)) == SQLITE_ROW) {
    nlohmann::ordered_json t;
    t["trace_id"] = text(0);
    t["kind"] = text(1);
    t["name"] = text(2);
    t["key"] = text(3);
    t["model"] = text(4);
    t["status"] = sqlite3_column_int(s.s, 5);
    t["error"] = sqlite3_column_int(s.s, 6) != 0;
    t["start_us"] = sqlite3_column_int64(s.s, 7);
    t["duration_us"] = sqlite3_column_int64(s.s, 8);
    t["spans"] = sqlite3_column_int(s.s, 9);
    t["input_tokens"] = sqlite3_column_int64(s.s, 10);
    t["output_tokens"] = sqlite3_column_int64(s.s, 11);
    out.push_back(std::move(t));
  }
  if (rc != SQLITE_DONE) return db_error(db, "query");
  nlohmann::ordered_json root;
  root["traces"] = std::move(out);
  return root.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

Result<std::string> TraceStore::stats(const StatsQuery& q) const {
  // The buckets sit on whole multiples of their length (the last one holds
  // now): a chart refreshed a few seconds later shows the same buckets.
  const int64_t bucket_us = q.bucket_s * 1'000'000;
  const int64_t now_us = q.now_us ? q.now_us : unix_micros();
  const int64_t end_us = (now_us / bucket_us + 1) * bucket_us;
  sqlite3* db = impl_->reader.db;
  Stmt s;
  // A scan of at most max_traces rows (no index on start_us: see open()).
  if (sqlite3_prepare_v2(db,
                         "SELECT start_us, duration_us, error, input_tokens, output_tokens FROM "
                         "traces WHERE start_us >= ?1 AND start_us < ?2 AND (?3 = '' OR "
                         "key_name = ?3)",
                         -1, &s.s, nullptr) != SQLITE_OK)
    return db_error(db, "query");
  sqlite3_bind_int64(s.s, 1, end_us - (q.window_s + q.bucket_s) * 1'000'000);  // stats_json cuts
  sqlite3_bind_int64(s.s, 2, end_us);
  bind_text(s.s, 3, q.key);
  std::vector<StatsRow> rows;
  int rc;
  while ((rc = sqlite3_step(s.s)) == SQLITE_ROW)
    rows.push_back({sqlite3_column_int64(s.s, 0), sqlite3_column_int64(s.s, 1),
                    sqlite3_column_int(s.s, 2) != 0, sqlite3_column_int64(s.s, 3),
                    sqlite3_column_int64(s.s, 4)});
  if (rc != SQLITE_DONE) return db_error(db, "query");
  return stats_json(q, end_us, rows);
}

Result<std::optional<TraceStore::Stored>> TraceStore::get(std::string_view trace_id) const {
  sqlite3* db = impl_->reader.db;
  Stmt s;
  if (sqlite3_prepare_v2(db,
                         "SELECT key_name, json, id, kind, name, model, status, error, start_us, "
                         "duration_us FROM traces WHERE id = ?",
                         -1, &s.s, nullptr) != SQLITE_OK)
    return db_error(db, "query");
  bind_text(s.s, 1, std::string(trace_id));
  int rc = sqlite3_step(s.s);
  if (rc == SQLITE_DONE) return std::optional<Stored>();
  if (rc != SQLITE_ROW) return db_error(db, "query");
  auto text = [&](int col) {
    const auto* p = sqlite3_column_text(s.s, col);
    return p ? std::string(reinterpret_cast<const char*>(p)) : std::string();
  };
  // The row's spans: a record (this version), their JSON array (rows from
  // before the record), or the whole object (rows from before that).
  const auto* data = static_cast<const char*>(sqlite3_column_blob(s.s, 1));
  std::string json(data ? data : "", data ? static_cast<size_t>(sqlite3_column_bytes(s.s, 1)) : 0);
  if (!json.empty() && json.front() == '{') return std::optional<Stored>(Stored{text(0), json});
  if (!json.empty() && static_cast<unsigned char>(json.front()) == kSpansRecordForm) {
    auto spans = spans_record_json(json);
    if (!spans) return std::move(spans).error();
    json = std::move(*spans);
  }
  Trace summary;
  summary.trace_id = text(2);
  summary.kind = text(3);
  summary.name = text(4);
  summary.key_name = text(0);
  summary.model = text(5);
  summary.status = sqlite3_column_int(s.s, 6);
  summary.error = sqlite3_column_int(s.s, 7) != 0;
  summary.start_us = sqlite3_column_int64(s.s, 8);
  summary.duration_us = sqlite3_column_int64(s.s, 9);
  return std::optional<Stored>(
      Stored{summary.key_name, Trace::json_with_spans(summary, json.empty() ? "[]" : json)});
}

}  // namespace toolwire::telemetry
