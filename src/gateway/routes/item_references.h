// References to items of stored answers (`item_reference` items), at a
// dialect's endpoint whose Ingress::item_references is set: each one is
// replaced by the item it names, from the response store and in the calling
// key's scope (exactly as previous_response_id), before the request goes to
// any upstream, in whatever dialect that speaks (docs/gateway.md, "Response
// store").
#pragma once

#include <optional>
#include <string_view>

#include "gateway/routes/response_store.h"
#include "toolwire/dialects/codec.h"
#include "toolwire/dialects/ingress.h"
#include "toolwire/ir/request.h"

namespace toolwire::gateway::routes {

// Replaces every reference in `request` (decoded from `body`) by the stored
// item's parts, found under scoped_response_id(scope, id). The items of
// answers are model turns: they join the assistant message they border, so
// the conversation keeps the order the client sent. An error body (written by
// `error`, `param` the reference's place in `body`) for an id not stored in
// this scope (400 item_reference_not_found: the same for another key's item
// as for one never issued) or when the store is off.
std::optional<dialects::WireError> resolve_item_references(
    ResponseStore& store, ir::Request& request, std::string_view scope, std::string_view body,
    const dialects::ItemReferences& references, dialects::StoreErrorWriter error);

}  // namespace toolwire::gateway::routes
