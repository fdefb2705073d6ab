// `previous_response_id`, served by the gateway for the dialects whose
// Ingress::response_store is set: each completed answer's conversation (the input messages, the
// earlier ones it continued included, and the answer) under the id the client
// got, and the answer's items under theirs (`item_reference`). Bounded by a
// count and by an estimate of the bytes held; the least recently used
// response goes first, its items with it. In process only: a restart forgets
// all; with shared state (--redis) a request's answers go to Redis instead
// (model_call.cc, shared_state/).
#pragma once

#include <cstddef>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "toolwire/dialects/ingress.h"
#include "toolwire/ir/message.h"

namespace toolwire::gateway::routes {

class ResponseStore {
 public:
  using Conversation = std::vector<ir::Message>;

  // max_responses 0: disabled (previous_response_id is refused).
  void set_limits(size_t max_responses, size_t max_bytes);
  bool enabled() const;

  using Items = std::vector<dialects::StoredItem>;

  // Replaces an entry of the same id. A conversation bigger than max_bytes
  // on its own is not kept. `items`: the answer's items, their ids scoped as
  // `id` is (scoped_response_id); an item id already stored now names this one.
  void put(const std::string& id, Conversation conversation, Items items = {});
  // The stored conversation (now the most recently used); null if unknown.
  std::shared_ptr<const Conversation> find(std::string_view id);
  // A stored item's parts (its response now the most recently used); nullopt
  // if unknown.
  std::optional<std::vector<ir::Part>> find_item(std::string_view item_id);

  size_t size() const;
  size_t bytes() const;

  // Runs on every later put(), before the entry is kept here: a request's
  // own store writes its answer through to the shared one (Redis).
  using PutHook = std::function<void(const std::string& id, const Conversation&, const Items&)>;
  void set_on_put(PutHook hook) { on_put_ = std::move(hook); }

 private:
  struct Entry {
    std::string id;
    std::shared_ptr<const Conversation> conversation;
    Items items;
    size_t bytes = 0;
  };
  void evict_locked();
  void erase_locked(std::list<Entry>::iterator it);

  PutHook on_put_;
  mutable std::mutex mu_;
  size_t max_responses_ = 0, max_bytes_ = 0, bytes_ = 0;
  std::list<Entry> lru_;  // front: most recently used
  std::unordered_map<std::string_view, std::list<Entry>::iterator> index_;  // keys: lru_'s ids
  // Item id → its entry and place in the entry's items (keys: the items' ids).
  struct ItemPlace {
    std::list<Entry>::iterator entry;
    size_t index;
  };
  std::unordered_map<std::string_view, ItemPlace> items_;
};

// What a conversation holds, roughly: its strings' sizes plus a fixed cost
// per message and part.
size_t approximate_bytes(const ResponseStore::Conversation& conversation);
size_t approximate_bytes(const ResponseStore::Items& items);

// "resp_" and 48 random hex digits: an id the client cannot guess.
std::string new_response_id();

}  // namespace toolwire::gateway::routes
