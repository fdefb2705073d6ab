#include "gateway/routes/response_store.h"

#include "gateway/auth/random_hex.h"

#include <atomic>
#include <variant>

namespace toolwire::gateway::routes {
namespace {

constexpr size_t kPerItem = 64;  // the containers' own overhead, roughly

size_t bytes_of(const ir::TextPart& p) { return p.text.size(); }
size_t bytes_of(const ir::ImagePart& p) {
  return p.url.size() + p.media_type.size() + p.data.size();
}
size_t bytes_of(const ir::UnknownPart& p) { return p.raw_json.size(); }
size_t bytes_of(const ir::ToolCallPart& p) {
  return p.id.size() + p.name.size() + p.arguments.size() + p.signature.size();
}
size_t bytes_of(const ir::ThinkingPart& p) {
  return p.text.size() + p.signature.size() + p.redacted_data.size() + p.item_id.size() +
         p.encrypted_content.size();
}
size_t bytes_of(const ir::ToolResultPart& p) {
  size_t n = p.call_id.size();
  for (const auto& c : p.content)
    n += kPerItem + std::visit([](const auto& x) { return bytes_of(x); }, c);
  return n;
}

size_t bytes_of(const std::vector<ir::Part>& parts) {
  size_t n = kPerItem;
  for (const auto& p : parts)
    n += kPerItem + std::visit([](const auto& x) { return bytes_of(x); }, p);
  return n;
}

}  // namespace

size_t approximate_bytes(const ResponseStore::Conversation& conversation) {
  size_t n = 0;
  for (const auto& m : conversation) n += bytes_of(m.parts);
  return n;
}

size_t approximate_bytes(const ResponseStore::Items& items) {
  size_t n = 0;
  for (const auto& item : items) n += item.id.size() + bytes_of(item.parts);
  return n;
}

std::string new_response_id() {
  if (std::optional<std::string> hex = random_hex(24)) return "resp_" + *hex;
  // No entropy source: still unique within the process.
  static std::atomic<unsigned long long> counter{0};
  return "resp_local" + std::to_string(++counter);
}

void ResponseStore::set_limits(size_t max_responses, size_t max_bytes) {
  std::lock_guard lock(mu_);
  max_responses_ = max_responses;
  max_bytes_ = max_bytes;
  evict_locked();
}

bool ResponseStore::enabled() const {
  std::lock_guard lock(mu_);
  return max_responses_ > 0 && max_bytes_ > 0;
}

void ResponseStore::put(const std::string& id, Conversation conversation, Items items) {
  if (on_put_) on_put_(id, conversation, items);
  size_t n = approximate_bytes(conversation) + approximate_bytes(items) + id.size();
  auto shared = std::make_shared<const Conversation>(std::move(conversation));
  std::lock_guard lock(mu_);
  if (max_responses_ == 0 || n > max_bytes_) return;
  if (auto it = index_.find(id); it != index_.end()) erase_locked(it->second);
  lru_.push_front(Entry{id, std::move(shared), std::move(items), n});
  index_.emplace(lru_.front().id, lru_.begin());
  const auto& stored = lru_.front().items;
  for (size_t i = 0; i < stored.size(); ++i)
    items_.insert_or_assign(std::string_view(stored[i].id), ItemPlace{lru_.begin(), i});
  bytes_ += n;
  evict_locked();
}

std::optional<std::vector<ir::Part>> ResponseStore::find_item(std::string_view item_id) {
  std::lock_guard lock(mu_);
  auto it = items_.find(item_id);
  if (it == items_.end()) return std::nullopt;
  lru_.splice(lru_.begin(), lru_, it->second.entry);
  return it->second.entry->items[it->second.index].parts;
}

void ResponseStore::erase_locked(std::list<Entry>::iterator it) {
  for (const auto& item : it->items)
    // Only where the id still names this entry's item (a later answer may
    // have taken it over).
    if (auto f = items_.find(item.id); f != items_.end() && f->second.entry == it) items_.erase(f);
  bytes_ -= it->bytes;
  index_.erase(it->id);
  lru_.erase(it);
}

std::shared_ptr<const ResponseStore::Conversation> ResponseStore::find(std::string_view id) {
  std::lock_guard lock(mu_);
  auto it = index_.find(id);
  if (it == index_.end()) return nullptr;
  lru_.splice(lru_.begin(), lru_, it->second);
  return it->second->conversation;
}

size_t ResponseStore::size() const {
  std::lock_guard lock(mu_);
  return lru_.size();
}

size_t ResponseStore::bytes() const {
  std::lock_guard lock(mu_);
  return bytes_;
}

void ResponseStore::evict_locked() {
  while (!lru_.empty() && (lru_.size() > max_responses_ || bytes_ > max_bytes_))
    erase_locked(std::prev(lru_.end()));
}

}  // namespace toolwire::gateway::routes
