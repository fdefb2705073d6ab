// The demo's to-do list in SQLite: one table, prepared statements only.
#include <sqlite3.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "toolwire/demo/demo.h"

namespace toolwire::demo {
namespace {

Error db_error(sqlite3* db, std::string_view what) {
  return make_error(ErrorCode::internal,
                    std::string(what) + ": " + (db ? sqlite3_errmsg(db) : "out of memory"));
}

// A prepared statement, finalized on scope exit.
struct Stmt {
  sqlite3_stmt* s = nullptr;
  ~Stmt() { sqlite3_finalize(s); }
};

}  // namespace

std::string default_data_dir() {
  if (const char* x = std::getenv("XDG_DATA_HOME"); x && *x) return std::string(x) + "/toolwire";
  if (const char* h = std::getenv("HOME"); h && *h)
    return std::string(h) + "/.local/share/toolwire";
  return ".toolwire";
}

Result<std::shared_ptr<TodoStore>> TodoStore::open(const std::string& path) {
  std::error_code ec;
  auto dir = std::filesystem::path(path).parent_path();
  if (!dir.empty()) std::filesystem::create_directories(dir, ec);
  if (ec)
    return make_error(ErrorCode::unavailable,
                      "cannot create " + dir.string() + ": " + ec.message());
  std::shared_ptr<TodoStore> store(new TodoStore());
  store->path_ = path;
  if (sqlite3_open_v2(path.c_str(), &store->db_,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
                      nullptr) != SQLITE_OK)
    return db_error(store->db_, "cannot open " + path);
  sqlite3_busy_timeout(store->db_, 2000);  // two chats at once: wait, do not fail
  const char* schema =
      "CREATE TABLE IF NOT EXISTS todos ("
      " id INTEGER PRIMARY KEY AUTOINCREMENT,"
      " text TEXT NOT NULL,"
      " done INTEGER NOT NULL DEFAULT 0,"
      " created_at TEXT NOT NULL DEFAULT (datetime('now')))";
  if (sqlite3_exec(store->db_, schema, nullptr, nullptr, nullptr) != SQLITE_OK)
    return db_error(store->db_, "cannot create the todos table in " + path);
  return store;
}

TodoStore::~TodoStore() { sqlite3_close(db_); }

Result<int64_t> TodoStore::add(std::string_view text) {
  std::lock_guard<std::mutex> lock(mu_);
  Stmt st;
  if (sqlite3_prepare_v2(db_, "INSERT INTO todos(text) VALUES(?1)", -1, &st.s, nullptr) !=
      SQLITE_OK)
    return db_error(db_, "prepare");
  sqlite3_bind_text(st.s, 1, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
  if (sqlite3_step(st.s) != SQLITE_DONE) return db_error(db_, "insert");
  return static_cast<int64_t>(sqlite3_last_insert_rowid(db_));
}

Result<std::vector<Todo>> TodoStore::list(bool include_done) const {
  std::lock_guard<std::mutex> lock(mu_);
  Stmt st;
  const char* sql = include_done ? "SELECT id, text, done FROM todos ORDER BY id"
                                 : "SELECT id, text, done FROM todos WHERE done = 0 ORDER BY id";
  if (sqlite3_prepare_v2(db_, sql, -1, &st.s, nullptr) != SQLITE_OK)
    return db_error(db_, "prepare");
  std::vector<Todo> out;
  int rc;
  while ((rc = sqlite3_step(st.s)) == SQLITE_ROW) {
    Todo t;
    t.id = sqlite3_column_int64(st.s, 0);
    const unsigned char* txt = sqlite3_column_text(st.s, 1);
    t.text = txt ? reinterpret_cast<const char*>(txt) : "";
    t.done = sqlite3_column_int(st.s, 2) != 0;
    out.push_back(std::move(t));
  }
  if (rc != SQLITE_DONE) return db_error(db_, "select");
  return out;
}

Result<Todo> TodoStore::complete(int64_t id) {
  std::lock_guard<std::mutex> lock(mu_);
  Stmt up;
  if (sqlite3_prepare_v2(db_, "UPDATE todos SET done = 1 WHERE id = ?1", -1, &up.s, nullptr) !=
      SQLITE_OK)
    return db_error(db_, "prepare");
  sqlite3_bind_int64(up.s, 1, id);
  if (sqlite3_step(up.s) != SQLITE_DONE) return db_error(db_, "update");
  if (sqlite3_changes(db_) == 0)
    return make_error(ErrorCode::not_found, "no to-do #" + std::to_string(id));
  Stmt sel;
  if (sqlite3_prepare_v2(db_, "SELECT text FROM todos WHERE id = ?1", -1, &sel.s, nullptr) !=
      SQLITE_OK)
    return db_error(db_, "prepare");
  sqlite3_bind_int64(sel.s, 1, id);
  Todo t{id, "", true};
  if (sqlite3_step(sel.s) == SQLITE_ROW) {
    const unsigned char* txt = sqlite3_column_text(sel.s, 0);
    t.text = txt ? reinterpret_cast<const char*>(txt) : "";
  }
  return t;
}

}  // namespace toolwire::demo
