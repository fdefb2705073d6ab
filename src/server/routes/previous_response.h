// /v1/responses and the gateway's response store: a request's
// `previous_response_id` becomes the stored conversation in front of its own
// input, and a completed answer is stored unless the request said
// `store: false` (docs/gateway.md, "Response store").
//
// The Responses decoder keeps both fields as top-level extras (raw JSON).
// previous_response_id is taken out here: the upstream gets the whole
// conversation instead, in whatever dialect it speaks.
#pragma once

#include <optional>
#include <string>

#include "server/routes/response_store.h"
#include "toolwire/codec/codec.h"
#include "toolwire/ir/request.h"

namespace toolwire::server::routes {

struct ResponseRecord {
  bool store = true;  // false: the request said store: false
  // The conversation so far: the stored one, then the request's input.
  ResponseStore::Conversation input;
};

// Applies the request's previous_response_id. An error body (OpenAI shape)
// when it names no stored response (400 previous_response_not_found) or the
// store is off (400), or the field is not a string.
std::optional<codec::WireError> apply_previous_response(ResponseStore& store, ir::Request& request,
                                                        ResponseRecord& record);

}  // namespace toolwire::server::routes
