// normalize.h — the semantic view two IRs are compared in after a cross-dialect
// round trip. Each rule below undoes exactly one *documented* lossy mapping of
// the codecs (see src/dialects/*/README.md); everything else must survive as is.
#pragma once

#include <algorithm>
#include <initializer_list>
#include <string_view>
#include <vector>

#include "toolwire/dialects/codec.h"
#include "toolwire/ir/request.h"
#include "toolwire/ir/response.h"

namespace toolwire::testing {

// Which dialects the value travelled through, by codec name ("openai_chat").
struct Route {
  std::vector<std::string_view> dialects;

  bool via(std::string_view dialect) const {
    return std::find(dialects.begin(), dialects.end(), dialect) != dialects.end();
  }
  static Route of(std::initializer_list<const dialects::Codec*> codecs) {
    Route r;
    for (const dialects::Codec* c : codecs) r.dialects.push_back(c->name());
    return r;
  }
};

// Always: a call's signature is Gemini's alone (cleared through any other
// dialect). Arguments that are valid JSON are re-serialized canonically (compared
// as JSON values), source_dialect/extra cleared (extra is checked separately:
// dropped with a warning), finish raw cleared (kind compared).
// Through Anthropic: no developer flag, participant name, image detail or
// strict flag; max_tokens defaulted to 4096; parallel_tool_calls=true is the
// default (= unset) and false without a tool_choice gets tool_choice auto;
// unknown parts dropped; created unknown.
// Through Anthropic, in requests: unsigned thinking dropped (the API rejects it).
// Through OpenAI: thinking signatures and redacted thinking dropped; images
// that OpenAI moves out of tool results into a following user message are
// folded back into their result (texts first, then images); cache writes lost.
// Through Bedrock: no model or stream flag in the body (the URL path has
// them), no participant name, developer flag, strict flag, parallel switch,
// "none" tool choice, image detail or call signature; images given by web
// URL dropped; responses without id, model or created.
// Through Gemini (src/dialects/gemini/README.md): no model, stream flag or
// metadata in the body; no parallel_tool_calls, developer flag, participant
// name, image detail, strict flag or redacted thinking; schemas reduced to
// Gemini's subset; a result's texts joined into one; the placeholder
// signature on another dialect's calls; no created time, cache writes or
// (Gemini 2) response id.
// Through Responses: no participant name, no stop sequences, an unset strict
// flag written false; thinking signatures and redacted thinking dropped; in
// requests thinking without a reasoning item id dropped, in responses item ids
// generated; cache writes lost. Leaving Responses: a reasoning item's id and encrypted content.
// Responses: zero usage counts read as unset (see zero_usage_unset).
ir::Request normalized(ir::Request r, Route route);
ir::Response normalized(ir::Response r, Route route);

// Zero counts read as unknown: both dialects require a usage object, so an
// encoder writes 0 for what its source did not say.
void zero_usage_unset(ir::Usage& u);

// arguments as canonical JSON text (sorted keys) when valid, else as is.
std::string canonical_json(const std::string& text);

}  // namespace toolwire::testing
