// call_id.h — the deterministic, reversible tool-call id mapping for dialects
// that restrict ids (Anthropic requires ^[a-zA-Z0-9_-]+$).
//
// Private to the codecs; shared by every codec that writes or reads such ids.
// An id that is already valid and does not start with "tw-" passes unchanged.
// Any other id becomes "tw-" followed by each of its bytes: [A-Za-z0-9_] as is,
// '-' as "--", any other byte as '-' plus two lowercase hex digits:
//
//   to_anthropic("call_abc")       == "call_abc"
//   to_anthropic("call:1/x")       == "tw-call-3a1-2fx"
//   from_anthropic("tw-call-3a1-2fx") == "call:1/x"
//
// The mapping is injective, so from_anthropic(to_anthropic(x)) == x for every
// x. from_anthropic returns its input unchanged when it is not the image of
// some id (e.g. a native "tw-abc"), so decoding never fails. An empty id maps
// to itself: the encoder invents no id (decoders reject empty ids).
#pragma once

#include <string>
#include <string_view>

namespace toolwire::dialects::call_id {

// True when `id` matches ^[a-zA-Z0-9_-]+$.
bool is_anthropic_valid(std::string_view id);

// True when to_anthropic(id) != id.
bool needs_mapping(std::string_view id);

std::string to_anthropic(std::string_view id);
// The same without a copy for the common id that needs no mapping: returns
// `id` itself, or the mapped id written into `scratch`.
std::string_view to_anthropic(std::string_view id, std::string& scratch);
std::string from_anthropic(std::string_view id);
// The same without a copy for an id that was not mapped: returns `id` itself,
// or the original id written into `scratch`.
std::string_view from_anthropic(std::string_view id, std::string& scratch);

}  // namespace toolwire::dialects::call_id
