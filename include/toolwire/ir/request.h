// toolwire/ir/request.h — a model request.
#pragma once

#include <cstdint>
#include <optional>

#include "toolwire/core/loss_policy.h"
#include "toolwire/ir/message.h"
#include "toolwire/ir/response_format.h"
#include "toolwire/ir/source_map.h"
#include "toolwire/ir/tool.h"

namespace toolwire::ir {

// A top-level field the IR does not model, kept as raw JSON. A same-dialect
// encoder writes it back; another dialect drops it with a Warning.
template <class S>
struct BasicExtraField {
  typename S::String key;
  typename S::String raw_json;
  bool operator==(const BasicExtraField&) const = default;
};

template <class S>
struct BasicSystemPart {
  typename S::String text;
  bool developer = false;  // OpenAI "developer" role rather than "system"
  bool operator==(const BasicSystemPart&) const = default;
};

// The reasoning ("thinking") a request asks for. Each dialect spells it its
// own way (an effort word, a token budget, an on/off switch); the request
// codecs map between them (src/dialects/common/reasoning.h). Unset members:
// not asked.
template <class S>
struct BasicReasoning {
  // "none", "minimal", "low", "medium", "high", "xhigh", "max" (OpenAI
  // `reasoning_effort`, Responses `reasoning.effort`, Anthropic
  // `output_config.effort`, Gemini `thinkingLevel`); empty: not given.
  typename S::String effort;
  // A thinking budget in tokens (Anthropic `thinking.budget_tokens`, Gemini
  // `thinkingBudget`); 0 turns thinking off.
  std::optional<int64_t> budget_tokens;
  // An explicit switch without a budget: true for Anthropic `adaptive` and
  // Gemini's dynamic budget (-1), false for Anthropic `disabled`.
  std::optional<bool> enabled;
  // Responses `reasoning.summary` ("auto", "concise", "detailed"); Gemini
  // `includeThoughts: true` reads as "auto". Empty: not asked.
  typename S::String summary;
  bool operator==(const BasicReasoning&) const = default;
};

template <class S>
struct BasicRequest {
  template <class T>
  using Vector = typename S::template Vector<T>;
  typename S::String model;
  Vector<BasicSystemPart<S>> system;  // leading system prompt(s)
  Vector<BasicMessage<S>> messages;
  Vector<BasicToolDefinition<S>> tools;
  std::optional<BasicToolChoice<S>> tool_choice;
  std::optional<bool> parallel_tool_calls;  // false = at most one call per turn
  std::optional<int64_t> max_tokens;
  std::optional<double> temperature;
  std::optional<double> top_p;
  Vector<typename S::String> stop;
  // Sampling some dialects share (dialects/common/sampling.h); nullopt: not set.
  std::optional<int64_t> seed;
  std::optional<int64_t> top_k;
  std::optional<double> frequency_penalty;
  std::optional<double> presence_penalty;
  std::optional<BasicReasoning<S>> reasoning;
  // OpenAI's answer-length hint, "low" / "medium" / "high" (Chat `verbosity`,
  // Responses `text.verbosity`); empty: not given.
  typename S::String verbosity;
  // response_format / text.format / output_config.format / responseSchema...;
  // nullopt: the request names none.
  std::optional<BasicResponseFormat<S>> response_format;
  bool stream = false;
  typename S::String metadata;        // raw JSON object, empty if none
  typename S::String source_dialect;  // dialect `extra` came from
  Vector<BasicExtraField<S>> extra;
  // Not on the wire: where the decoder found each message and part, for the
  // paths of an encoder's warnings (ir/source_map.h); empty if built in C++.
  BasicSourceMap<S> source_map;
  // Not on the wire: how long the caller will wait for the whole answer, in
  // ms (a gateway's client's own timeout); an upstream call, its retries and
  // their retry-after waits included, never runs past it. nullopt: no limit
  // but the upstream's own.
  std::optional<int64_t> deadline_ms;
  // Not on the wire: whether what encoding it for an upstream would lose is
  // a warning (the default) or a refusal before anything is sent
  // (core/loss_policy.h; a gateway route's `on_loss`).
  LossPolicy on_loss;
  bool operator==(const BasicRequest&) const = default;
};

using ExtraField = BasicExtraField<Owning>;
using SystemPart = BasicSystemPart<Owning>;
using Reasoning = BasicReasoning<Owning>;
using Request = BasicRequest<Owning>;

}  // namespace toolwire::ir
