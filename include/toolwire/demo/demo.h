// toolwire/demo/demo.h — the tools and script of the offline demo
// (`toolwire chat` with no flags).
//
// A small to-do list kept in SQLite under the user's data directory, exposed
// as three tools (add_todo, list_todos, complete_todo), and the script the
// scripted provider follows so that "add 'buy milk' to my to-do list" really
// adds a row — and the next run lists it.
//
//   tools::Registry reg;
//   auto store = demo::TodoStore::open(demo::default_data_dir() + "/todo.sqlite3");
//   if (!store) die(store.error());
//   TW_TRY(demo::register_todo_tools(reg, *store));
//   auto script = provider::parse_script(demo::demo_script_json());
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "toolwire/core/result.h"
#include "toolwire/tools/registry.h"

struct sqlite3;

namespace toolwire::demo {

// $XDG_DATA_HOME/toolwire, else $HOME/.local/share/toolwire (not created here).
std::string default_data_dir();

struct Todo {
  int64_t id = 0;
  std::string text;
  bool done = false;
};

// One SQLite database file; safe to use from several threads.
class TodoStore {
 public:
  // Creates the file's directory and the table when missing.
  static Result<std::shared_ptr<TodoStore>> open(const std::string& path);
  ~TodoStore();
  TodoStore(const TodoStore&) = delete;
  TodoStore& operator=(const TodoStore&) = delete;

  Result<int64_t> add(std::string_view text);
  Result<std::vector<Todo>> list(bool include_done) const;
  // not_found when there is no such id; the item (now done) otherwise.
  Result<Todo> complete(int64_t id);
  const std::string& path() const { return path_; }

 private:
  TodoStore() = default;
  std::string path_;
  sqlite3* db_ = nullptr;
  mutable std::mutex mu_;
};

// Registers add_todo, list_todos and complete_todo over `store`.
Status register_todo_tools(tools::Registry& registry, std::shared_ptr<TodoStore> store);

// The script of the offline demo (to-do list and read-only file tools).
std::string_view demo_script_json();

}  // namespace toolwire::demo
