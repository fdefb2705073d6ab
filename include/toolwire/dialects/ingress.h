// toolwire/dialects/ingress.h — how a caller reaches a gateway in a dialect.
//
// Each dialect's entry (dialect.h) carries an Ingress: the paths of its
// model-call endpoints, where its SDK sends the key, what its stream writes
// while nothing else happens, the shape of its model list, and the requests it
// refuses. The gateway reads only these entries; it names no dialect itself.
//
//   auto call = dialects::match_model_call("/v1/messages", "");
//   // call->dialect: the Anthropic entry; call->route: its endpoint
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "toolwire/core/json_writer.h"
#include "toolwire/core/result.h"
#include "toolwire/ir/request.h"
#include "toolwire/ir/response.h"

namespace toolwire::dialects {

struct Dialect;
struct WireError;

// One model-call endpoint a request's path names.
struct RouteMatch {
  // The endpoint in logs and metrics, the model left out (a string literal).
  std::string_view route;
  std::string model;           // from the path, decoded; empty: the body's
  std::optional<bool> stream;  // from the path; nullopt: the body's
};

// nullopt: not one of the dialect's model-call paths. An error: one of them
// but unusable (an empty or badly encoded model), answered in the dialect
// with the error's status.
using RouteMatcher = std::optional<Result<RouteMatch>> (*)(std::string_view path,
                                                           std::string_view query);

// A path of the dialect's API that a gateway knows and does not serve: 501.
struct UnservedRoute {
  std::string_view path;
  std::string_view method;  // "POST"
  std::string_view reason;
};

// The caller's key in one header's value; empty: not there.
using KeyReader = std::string_view (*)(std::string_view value);

// A request the dialect's endpoint refuses although it decoded: the error in
// the dialect's shape; nullopt: served.
using RequestCheck = std::optional<WireError> (*)(const ir::Request& request);

// An error of a gateway's response store (an unknown `previous_response_id`)
// in the dialect's shape, status 400; `code` says why in a word
// ("previous_response_not_found"), `param` names the request field at fault
// ("previous_response_id", "input[2]").
using StoreErrorWriter = WireError (*)(std::string_view message, std::string_view code,
                                       std::string_view param);

// One item of a stored answer that a later request may name by its id
// (Responses' `item_reference`): the id the client got, and its parts.
struct StoredItem {
  std::string id;
  std::vector<ir::Part> parts;
};

// How a dialect names items of earlier answers (all null: it does not).
struct ItemReferences {
  // The item id a decoded request's part refers to; nullopt: not a reference.
  std::optional<std::string> (*id_of)(const ir::Part& part) = nullptr;
  // An answer's items (its id set) as the dialect gave them to the client.
  std::vector<StoredItem> (*items_of)(const ir::Response& answer) = nullptr;
  // Where the request body's `n`-th reference (from 0) sits ("input[3]"),
  // for its error.
  std::string (*param_of)(std::string_view body, size_t n) = nullptr;
};

// The body of `GET /v1/models` in the dialect's shape, for these model ids.
using ModelListWriter = void (*)(JsonWriter& w, std::span<const std::string> ids);

struct Ingress {
  // nullptr: a gateway serves no endpoint of the dialect.
  RouteMatcher match_model_call = nullptr;
  // Its endpoints, for the text of a 404 ("POST /v1/messages").
  std::string_view routes_help;
  // The metrics label of a request its matcher refused (a bad model path).
  std::string_view route_family;
  // Paths whose errors (404, 405, protocol errors) answer in this dialect.
  bool (*owns_path)(std::string_view path) = nullptr;
  // A request with this header speaks the dialect whatever its path
  // (`anthropic-version`); it also picks the model list's shape.
  std::string_view marker_header;
  // Where its SDKs send the key, and how to read it from that header's value
  // (nullptr: the whole value). A dedicated header (`x-api-key`) wins over
  // `authorization`, which several dialects share.
  std::string_view key_header;
  KeyReader read_key = nullptr;
  // The form, for the error that asks for a key ("x-api-key: KEY").
  std::string_view key_help;
  // Also accepted as `?<name>=KEY` when no header has one.
  std::string_view key_query_param;
  // Written to a streaming caller after a quiet keep-alive interval; empty:
  // the stream stays silent (an unknown frame would reach the SDK's caller).
  std::string_view stream_keepalive;
  ModelListWriter write_models = nullptr;
  std::span<const UnservedRoute> unserved;
  RequestCheck refuse = nullptr;
  // Non-null: `previous_response_id` and `store` are served from a
  // gateway's response store, whose errors this writes.
  StoreErrorWriter response_store = nullptr;
  // With response_store: references to items of stored answers, replaced by
  // the items before the request goes on.
  ItemReferences item_references;
};

// `Bearer KEY` (either case of the scheme's first letter) → KEY.
std::string_view bearer_key(std::string_view authorization);

// A model-call endpoint and the dialect whose path it is.
struct ModelCall {
  const Dialect* dialect = nullptr;
  Result<RouteMatch> match;
};
// The model-call endpoint `path` (a trailing '/' ignored) names, with `query`
// (after '?', may be empty); nullopt when no dialect's matcher knows it.
std::optional<ModelCall> match_model_call(std::string_view path, std::string_view query);

// The dialect a request speaks before its route is known (for its errors): a
// marker header's, else the one owning the path, else the first dialect.
// `header(name)` gives a request header's value (empty: absent).
using HeaderLookup = std::function<std::string_view(std::string_view name)>;
const Dialect& dialect_for_request(std::string_view path, const HeaderLookup& header);

// The key a request presents, by every dialect's rule, or in the `?key=`
// form of `dialect` (the one the request speaks) from `query`. Empty: none.
std::string_view presented_key(const HeaderLookup& header, const Dialect* dialect = nullptr,
                               std::string_view query = {});

// The `type` of the ir::ErrorEvent a gateway writes into a caller's stream
// when its call fails midway (the caller's stream encoder turns it into the
// dialect's own error event): timeout_error, overloaded_error,
// rate_limit_error, invalid_request_error or api_error.
std::string stream_error_type(const Error& e);

// Every dialect's served routes, for a 404: "POST /v1/chat/completions, ...".
std::string served_routes();

// %XX sequences decoded; an error for a truncated or non-hex one, or for an
// encoded NUL.
Result<std::string> percent_decode(std::string_view s);

// The model segment of a model-call path, decoded; an error with status 400
// that names `what` when it is empty or badly encoded.
Result<std::string> path_model(std::string_view raw, std::string_view what);

// An error with status 400 about a request's path.
Error bad_path(std::string message);

// The value of `name` in a URL query (`a=1&alt=sse`), undecoded; nullopt if
// absent.
std::optional<std::string_view> query_param(std::string_view query, std::string_view name);

}  // namespace toolwire::dialects
