// The one list of dialects (toolwire/dialects/dialect.h). A dialect is its
// folder under src/dialects/, whose entry.h holds all it declares, plus one
// line here; the CLI, the HTTP provider, the gateway, the tool-schema export
// and the cross-dialect tests all read this list.
#include "dialects/anthropic_messages/entry.h"
#include "dialects/bedrock_converse/entry.h"
#include "dialects/gemini/entry.h"
#include "dialects/openai_chat/entry.h"
#include "dialects/openai_responses/entry.h"

namespace toolwire::dialects {
namespace {

// The first is the default of a request whose dialect nothing else tells.
constexpr Dialect kDialects[] = {
    openai_chat::kEntry, anthropic_messages::kEntry, openai_responses::kEntry,
    gemini::kEntry,      bedrock_converse::kEntry,
};

}  // namespace

std::span<const Dialect> all_dialects() { return kDialects; }

}  // namespace toolwire::dialects
