// A recorded request's identity: what must be equal for a replayed request
// to get the recorded answer. The method, the URL's path and query (not its
// scheme and host: the upstream may live elsewhere when replayed; not a `key`
// query parameter: a secret), and the body as JSON with its key order,
// ids and timestamps taken out:
//
//   - objects compare as sorted maps (nlohmann::json), so key order is free;
//   - the string values of id-like members (`id`, `tool_call_id`, `call_id`,
//     `toolUseId`, ...) become `<id:N>`, N counting distinct values in the
//     order met: a conversation's ids match when they are used the same way;
//   - timestamps (`created`, `created_at`, `timestamp`) become `<time>`.
//
// A body that is not JSON is compared as its text.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace toolwire::gateway::replay {

struct RequestKey {
  std::string method;
  std::string target;   // path?query, the secret parameters dropped
  nlohmann::json body;  // normalised as above
  // One line that equal keys share (the lookup's index).
  std::string text() const;
};

RequestKey normalize_request(std::string_view method, std::string_view url, std::string_view body);

// The path and query of `url`, without the parameters that carry keys.
std::string request_target(std::string_view url);

// How two keys differ: the number of differing places (values, members
// present on one side only, array elements), and the first one.
struct Difference {
  size_t count = 0;
  std::string where;     // "$.messages[0].content", or "the path" / "the method"
  std::string recorded;  // the value there, shortened
  std::string got;
};
Difference differ(const RequestKey& recorded, const RequestKey& got);

}  // namespace toolwire::gateway::replay
