// toolwire/textprovider/text_provider.h — a model without a native
// function-calling API behind the Provider interface (`tool_format: FAMILY`).
//
// The request's tools, earlier calls and results are rendered into the
// family's text (textformats/renderer.h) and the model's text is parsed back
// into tool calls as it streams (textformats/parser.h), so the gateway, the
// conductor and `toolwire chat` see ordinary tool calls:
//   - over a chat endpoint (`openai_compatible`): the request goes out with no
//     tools, their definitions in the system message, calls and results as
//     text (render_chat);
//   - over a raw completion endpoint (a profile of dialect
//     `openai_completions`: `POST /v1/completions`, `{"model","prompt",
//     "stream",...}` in, `choices[0].text` out, SSE when streamed): the whole
//     prompt in the family's chat template (render_prompt).
// A call is handed on once it ended (its arguments complete JSON); one cut
// off or malformed is dropped with a `tool_format` warning, never run. Calls
// are numbered 0, 1, ... as handed on; the finish reason is `tool_calls` when
// there is one.
#pragma once

#include <memory>
#include <string_view>

#include "toolwire/core/result.h"
#include "toolwire/provider/factory.h"
#include "toolwire/provider/provider.h"

namespace toolwire::textprovider {

// The dialect name of raw completion profiles.
inline constexpr std::string_view kCompletionsDialect = "openai_completions";

// OK when `family` names a text format (the message lists the known ones).
Status check_family(std::string_view family);

// `inner` (a chat provider) with tools rendered into the request and the
// answer's text parsed as `family`.
Result<std::unique_ptr<provider::Provider>> wrap_chat_provider(
    std::unique_ptr<provider::Provider> inner, std::string_view family);

// A raw completion endpoint at `profile.base_url + profile.path`, its prompt
// written in `family`'s chat template and its text parsed as `family`.
Result<std::unique_ptr<provider::Provider>> make_completion_provider(
    provider::Profile profile, const provider::ProviderConfig& cfg,
    transport::HttpTransport& client, std::string_view family);

// The provider for `profile` with `tool_format` applied: a completion
// profile needs a family; any other profile is provider::make_http_provider,
// wrapped when `family` is not empty.
Result<std::unique_ptr<provider::Provider>> make_text_provider(provider::Profile profile,
                                                               const provider::ProviderConfig& cfg,
                                                               transport::HttpTransport& client,
                                                               std::string_view family);

}  // namespace toolwire::textprovider
