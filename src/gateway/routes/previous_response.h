// The gateway's response store at a dialect's endpoint (Ingress::response_store): a request's
// `previous_response_id` becomes the stored conversation in front of its own
// input, and a completed answer is stored unless the request said
// `store: false` (docs/gateway.md, "Response store").
//
// The dialect's decoder keeps both fields as top-level extras (raw JSON).
// previous_response_id is taken out here: the upstream gets the whole
// conversation instead, in whatever dialect it speaks.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "gateway/routes/response_store.h"
#include "toolwire/dialects/codec.h"
#include "toolwire/dialects/ingress.h"
#include "toolwire/ir/accumulator.h"
#include "toolwire/ir/request.h"

namespace toolwire::gateway::routes {

struct ResponseRecord {
  bool store = true;  // false: the request said store: false
  // The conversation so far: the stored one, then the request's input.
  ResponseStore::Conversation input;
};

// Where a response is stored: its id within its owner's scope (the gateway
// key that made it; "" when the gateway takes no keys). A response is found
// only in the scope it was stored in: to another key its id is unknown.
std::string scoped_response_id(std::string_view scope, std::string_view id);

// The request's previous_response_id when it is a plain id string (without
// taking it out); nullopt otherwise (apply_previous_response() reports it).
std::optional<std::string> previous_response_id(const ir::Request& request);

// Applies the request's previous_response_id, looked up in `scope` (see
// scoped_response_id). An error body (written by `error`) when it names no stored
// response of this scope (400 previous_response_not_found: the same for
// another key's id as for one never issued) or the store is off (400), or
// the field is not a string.
std::optional<dialects::WireError> apply_previous_response(ResponseStore& store,
                                                           ir::Request& request,
                                                           ResponseRecord& record,
                                                           std::string_view scope,
                                                           dialects::StoreErrorWriter error);

// One call's way into the store: the previous response applied
// to its request, the id the client gets (the gateway's own, so that it can
// be found again), and what the client saw, kept once the answer completed.
class ResponseRecorder {
 public:
  // See apply_previous_response(); on success, an id when this answer will
  // be stored.
  // `references`: how the dialect lists an answer's items, which are stored
  // with it for later `item_reference`s.
  std::optional<dialects::WireError> begin(ResponseStore& store, ir::Request& request,
                                           std::string scope, dialects::StoreErrorWriter error,
                                           dialects::ItemReferences references = {});
  // The id the client gets; empty: the answer is not stored (keep the
  // upstream's).
  const std::string& id() const { return id_; }
  // A streamed event as the client gets it (a MessageStart takes id()).
  void saw(ir::StreamEvent& event);
  // The end of a stream that completed: what it carried is stored.
  void stream_done(ResponseStore& store);
  // A whole answer, as the client gets it (after the id was set on it).
  void done(ResponseStore& store, const ir::Response& response);

 private:
  ResponseRecord record_;
  std::string scope_;  // the owner's (scoped_response_id)
  std::vector<dialects::StoredItem> (*items_of_)(const ir::Response&) = nullptr;
  std::string id_;
  std::optional<ir::StreamAccumulator> seen_;
};

}  // namespace toolwire::gateway::routes
