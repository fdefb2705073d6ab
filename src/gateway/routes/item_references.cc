#include "gateway/routes/item_references.h"

#include <utility>
#include <vector>

#include "gateway/routes/previous_response.h"

namespace toolwire::gateway::routes {
namespace {

// Appends `parts` as a message of `role`; model turns that meet merge into
// one assistant message, as the decoder groups consecutive model items.
void append(std::vector<ir::Message>& out, ir::Role role, std::vector<ir::Part>&& parts,
            std::string name = {}) {
  if (parts.empty()) return;
  if (role == ir::Role::assistant && !out.empty() && out.back().role == ir::Role::assistant) {
    for (auto& p : parts) out.back().parts.push_back(std::move(p));
    return;
  }
  out.push_back(ir::Message{role, std::move(parts), std::move(name)});
}

}  // namespace

std::optional<dialects::WireError> resolve_item_references(
    ResponseStore& store, ir::Request& request, std::string_view scope, std::string_view body,
    const dialects::ItemReferences& references, dialects::StoreErrorWriter error) {
  if (!references.id_of) return std::nullopt;
  bool any = false;
  for (const auto& m : request.messages)
    for (const auto& p : m.parts) any = any || references.id_of(p).has_value();
  if (!any) return std::nullopt;

  auto param = [&](size_t n) {
    return references.param_of ? references.param_of(body, n) : std::string("input");
  };
  std::vector<ir::Message> out;
  out.reserve(request.messages.size() + 2);
  size_t n = 0;  // references seen so far
  for (auto& m : request.messages) {
    bool refers = false;
    for (const auto& p : m.parts) refers = refers || references.id_of(p).has_value();
    if (!refers) {  // kept whole (even empty), joined to a model turn before it
      if (m.role == ir::Role::assistant && !out.empty() && out.back().role == m.role)
        append(out, m.role, std::move(m.parts));
      else
        out.push_back(std::move(m));
      continue;
    }
    std::vector<ir::Part> run;  // the message's parts since the last reference
    for (auto& p : m.parts) {
      auto id = references.id_of(p);
      if (!id) {
        run.push_back(std::move(p));
        continue;
      }
      if (!store.enabled())
        return error("item_reference '" + *id +
                         "' needs the gateway's response store, which is off "
                         "(response_store.max_responses is 0): send the item itself instead",
                     "item_reference_unsupported", param(n));
      auto item = store.find_item(scoped_response_id(scope, *id));
      if (!item)
        return error("Item with id '" + *id +
                         "' not found (this gateway keeps the items of stored answers in "
                         "memory, bounded: it may have been evicted or the gateway restarted)",
                     "item_reference_not_found", param(n));
      ++n;
      append(out, m.role, std::move(run), m.name);
      run.clear();
      append(out, ir::Role::assistant, std::move(*item));
    }
    append(out, m.role, std::move(run), m.name);
  }
  request.messages = std::move(out);
  request.source_map = {};  // the messages were rebuilt: warnings name IR positions
  return std::nullopt;
}

}  // namespace toolwire::gateway::routes
