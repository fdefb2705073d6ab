#include "gateway/routes/previous_response.h"

#include "toolwire/core/json_writer.h"

namespace toolwire::gateway::routes {
namespace {

constexpr std::string_view kField = "previous_response_id";

// The extra field `key`'s raw JSON; removed from the request when `take`.
std::optional<std::string> extra(ir::Request& request, std::string_view key, bool take) {
  for (auto it = request.extra.begin(); it != request.extra.end(); ++it) {
    if (it->key != key) continue;
    std::string raw = it->raw_json;
    if (take) request.extra.erase(it);
    return raw;
  }
  return std::nullopt;
}

// A JSON string without escapes (response ids are [A-Za-z0-9_-]); nullopt
// for anything else.
std::optional<std::string> plain_string(std::string_view raw) {
  if (raw.size() < 2 || raw.front() != '"' || raw.back() != '"') return std::nullopt;
  raw = raw.substr(1, raw.size() - 2);
  if (raw.find('\\') != std::string_view::npos) return std::nullopt;
  return std::string(raw);
}

}  // namespace

std::optional<std::string> previous_response_id(const ir::Request& request) {
  for (const auto& e : request.extra)
    if (e.key == kField) return e.raw_json == "null" ? std::nullopt : plain_string(e.raw_json);
  return std::nullopt;
}

std::string scoped_response_id(std::string_view scope, std::string_view id) {
  if (scope.empty()) return std::string(id);
  std::string out;
  out.reserve(scope.size() + 1 + id.size());
  out.append(scope).append("/").append(id);
  return out;
}

std::optional<dialects::WireError> apply_previous_response(ResponseStore& store,
                                                           ir::Request& request,
                                                           ResponseRecord& record,
                                                           std::string_view scope,
                                                           dialects::StoreErrorWriter error) {
  if (auto s = extra(request, "store", false)) record.store = *s != "false";
  auto raw = extra(request, "previous_response_id", true);
  if (raw && *raw != "null") {
    auto id = plain_string(*raw);
    if (!id)
      return error("previous_response_id: expected a response id string", "invalid_type", kField);
    if (!store.enabled())
      return error(
          "previous_response_id needs the gateway's response store, which is off "
          "(response_store.max_responses is 0): send the whole conversation as input instead",
          "previous_response_unsupported", kField);
    auto conversation = store.find(scoped_response_id(scope, *id));
    if (!conversation)
      return error("Previous response with id '" + *id +
                       "' not found (this gateway keeps stored answers in memory, bounded: "
                       "it may have been evicted or the gateway restarted)",
                   "previous_response_not_found", kField);
    request.messages.insert(request.messages.begin(), conversation->begin(), conversation->end());
    // The client's messages moved up: so do their places (warning paths).
    const auto moved = static_cast<uint32_t>(conversation->size());
    for (auto& span : request.source_map.spans) span.message += moved;
    request.source_map.message_count += moved;
  }
  if (record.store && store.enabled()) record.input = request.messages;
  return std::nullopt;
}

std::optional<dialects::WireError> ResponseRecorder::begin(ResponseStore& store,
                                                           ir::Request& request, std::string scope,
                                                           dialects::StoreErrorWriter error,
                                                           dialects::ItemReferences references) {
  scope_ = std::move(scope);
  items_of_ = references.items_of;
  if (auto w = apply_previous_response(store, request, record_, scope_, error)) return w;
  if (record_.store && store.enabled()) id_ = new_response_id();
  return std::nullopt;
}

void ResponseRecorder::saw(ir::StreamEvent& event) {
  if (id_.empty()) return;
  if (auto* start = std::get_if<ir::MessageStart>(&event)) start->id = id_;
  if (!seen_) seen_.emplace();
  seen_->add(event);
}

void ResponseRecorder::stream_done(ResponseStore& store) {
  if (id_.empty() || !seen_) return;
  done(store, std::move(*seen_).take());
  seen_.reset();
}

void ResponseRecorder::done(ResponseStore& store, const ir::Response& response) {
  if (id_.empty()) return;
  ResponseStore::Conversation c = std::move(record_.input);
  c.push_back(ir::Message{ir::Role::assistant, response.parts, {}});
  ResponseStore::Items items;
  if (items_of_) {
    items = items_of_(response);
    for (auto& item : items) item.id = scoped_response_id(scope_, item.id);
  }
  store.put(scoped_response_id(scope_, id_), std::move(c), std::move(items));
  id_.clear();
}

}  // namespace toolwire::gateway::routes
