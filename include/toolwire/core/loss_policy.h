// toolwire/core/loss_policy.h — whether a translation may lose anything.
//
// A translation that cannot express something warns (core/warnings.h) and
// goes on: that is `warn`, the default. A caller whose behaviour depends on
// what it sends (a response format, a tool choice, stop sequences, a seed)
// chooses `error` instead (a gateway route's `on_loss: error`): the request
// is refused before anything is sent upstream, with every loss named, and
// `allow` keeps the codes the caller accepts as warnings.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "toolwire/core/result.h"
#include "toolwire/core/warnings.h"

namespace toolwire {

struct LossPolicy {
  enum class Mode { warn, error };
  Mode mode = Mode::warn;
  std::vector<std::string> allow;  // warning codes that stay warnings under `error`

  bool refuses(const Warning& w) const;
  // The refusal (invalid_argument, 400) naming each loss of `ws` this policy
  // does not accept; nullopt when it accepts them all. `stage` says what
  // lost them: "reading the openai_chat request", "translating it for
  // anthropic_messages".
  std::optional<Error> check(const Warnings& ws, std::string_view stage) const;
  bool operator==(const LossPolicy&) const = default;
};

// "warn" / "error"; nullopt for anything else.
std::optional<LossPolicy::Mode> parse_loss_mode(std::string_view text);

}  // namespace toolwire
