// toolwire/provider/capabilities.h — what a model provider can do, as data,
// and the one place where a request is adapted to it or refused.
//
// Capabilities come from the provider profile (profiles/*.json), never from
// sniffing model names. Before a request goes out, adapt_request() checks it:
// what can be dropped harmlessly is dropped with a Warning (a
// `parallel_tool_calls` flag the upstream does not accept, thinking blocks in
// the history of a model that does not think); what would change the meaning
// is refused with an error that says what and where (an image for a text-only
// model, a `required` tool choice the upstream cannot express).
//
//   provider::Capabilities caps;
//   caps.images = false;
//   Warnings w;
//   Result<ir::Request> r = provider::adapt_request(req, caps, "ollama", w);
//   if (!r) print(r.error().to_string());
//   // "$.messages[0].parts[1]: provider 'ollama' does not accept images"
#pragma once

#include <string_view>

#include "toolwire/core/result.h"
#include "toolwire/core/warnings.h"
#include "toolwire/ir/request.h"

namespace toolwire::provider {

struct Capabilities {
  bool streaming = true;
  bool tools = true;                     // accepts tool definitions at all
  bool parallel_tool_calls = true;       // may return several calls in one turn
  bool parallel_tool_calls_flag = true;  // accepts the `parallel_tool_calls` switch
  // Tool choice modes the upstream can express.
  bool tool_choice_auto = true;
  bool tool_choice_none = true;
  bool tool_choice_required = true;
  bool tool_choice_named = true;
  bool images = true;                 // image parts in user messages / tool results
  bool thinking = false;              // returns (and takes back) reasoning blocks
  bool requires_max_tokens = false;   // Anthropic: max_tokens is mandatory
  int64_t default_max_tokens = 4096;  // used when requires_max_tokens and none given

  bool operator==(const Capabilities&) const = default;
};

// Returns the request as the provider can take it, or the reason it cannot.
// `provider_name` only decorates messages.
Result<ir::Request> adapt_request(ir::Request request, const Capabilities& caps,
                                  std::string_view provider_name, Warnings& warnings);

}  // namespace toolwire::provider
