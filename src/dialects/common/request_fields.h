// request_fields.h — the opening every request decoder shares: parse the body
// with the folder's parser, require an object, mark the request's dialect, and
// walk the top-level fields with the repeated-key rule (duplicate_keys.h).
#pragma once

#include <simdjson.h>

#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "dialects/common/borrowed_ir.h"
#include "dialects/common/duplicate_keys.h"
#include "dialects/common/json_in.h"
#include "dialects/common/style.h"
#include "toolwire/ir/request.h"

namespace toolwire::dialects {

// Removes the request's extras named `key`.
template <class Extras>
void drop_extras(Extras& extras, std::string_view key) {
  std::erase_if(extras, [&](const auto& f) { return std::string_view(f.key) == key; });
}

// One parser per thread for every request decoder and both IR policies: its
// document holds the strings a borrowed IR points at until translate_request's
// encoder is done, and no other call on the thread parses with it in between.
inline simdjson::dom::parser& request_parser() {
  thread_local simdjson::dom::parser parser;
  return parser;
}

// The body's top-level object, parsed with request_parser();
// `req.source_dialect` is set to `dialect`.
template <class S>
Result<json::object> open_request(std::string_view body, std::string_view dialect,
                                  ir::BasicRequest<S>& req) {
  TW_ASSIGN(json::element root, json::parse(request_parser(), body));
  TW_ASSIGN(json::object obj, json::as_object(root, json::Path()));
  req.source_dialect = typename S::String(dialect);
  return obj;
}

// What a repeated key resets, besides its own extras: the last value wins,
// so what the field loop appends to for that key starts again.
enum RepeatReset : unsigned {
  kResetMessages = 1,
  kResetSystem = 2,
  kResetTools = 4,  // and the extras named RepeatRules::tool_key
  kResetStop = 8,
  kResetToolChoice = 16,
  kResetParallel = 32,
  kResetSampling = 64,  // max tokens, temperature, top_p
  kResetReasoning = 128,
};
struct RepeatRule {
  std::string_view key;
  unsigned resets;
};
struct RepeatRules {
  std::span<const RepeatRule> rules;
  std::string_view tool_key;  // the extras a tools reset removes
};

template <class S>
void reset_repeated(std::string_view key, const RepeatRules& rules, ir::BasicRequest<S>& req) {
  for (const RepeatRule& rule : rules.rules) {
    if (rule.key != key) continue;
    if (rule.resets & kResetMessages) req.messages.clear();
    if (rule.resets & kResetSystem) req.system.clear();
    if (rule.resets & kResetTools) {
      req.tools.clear();
      drop_extras(req.extra, rules.tool_key);
    }
    if (rule.resets & kResetStop) req.stop.clear();
    if (rule.resets & kResetToolChoice) req.tool_choice.reset();
    if (rule.resets & kResetParallel) req.parallel_tool_calls.reset();
    if (rule.resets & kResetReasoning) req.reasoning.reset();
    if (rule.resets & kResetSampling) {
      req.max_tokens.reset();
      req.temperature.reset();
      req.top_p.reset();
    }
  }
  drop_extras(req.extra, key);
  // And the members kept from inside the old value (placed_member.h).
  std::erase_if(req.extra, [&](const auto& f) {
    const std::string_view k = f.key;
    return k.size() > key.size() + 2 && k.starts_with("$.") && k.substr(2).starts_with(key) &&
           (k[key.size() + 2] == '[' || k[key.size() + 2] == '.');
  });
}

// Calls `on_field(key, value, path)` (returning Status) for each field of
// `obj`. A key given again: its last value wins, as in the providers'
// parsers, never silently — a duplicate_key warning, and `repeats` says what
// it resets.
template <class S, class OnField>
Status for_each_request_field(json::object obj, const json::Path& root, ir::BasicRequest<S>& req,
                              Warnings& warnings, const RepeatRules& repeats, OnField&& on_field) {
  json::KeyRepeats seen;
  size_t index = 0;
  for (auto field : obj) {
    const json::Path path(root, field.key);
    if (seen.seen_before(obj, field.key, index++)) [[unlikely]] {
      warn(warnings, std::string(json::KeyRepeats::kWarning), path,
           std::string(json::KeyRepeats::kMessage));
      reset_repeated(field.key, repeats, req);
    }
    TW_TRY(on_field(field.key, field.value, path));
  }
  return Status::Ok();
}

// open_request, then for_each_request_field over the top-level object.
template <class S, class OnField>
Status decode_request_fields(std::string_view body, std::string_view dialect,
                             ir::BasicRequest<S>& req, Warnings& warnings,
                             const RepeatRules& repeats, OnField&& on_field) {
  TW_ASSIGN(json::object obj, open_request(body, dialect, req));
  return for_each_request_field(obj, json::Path(), req, warnings, repeats,
                                std::forward<OnField>(on_field));
}

}  // namespace toolwire::dialects
