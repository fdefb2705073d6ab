// sampling.h — the request fields every dialect has under its own names,
// wherever they sit (top level, Gemini's generationConfig, Bedrock's
// inferenceConfig): max tokens, temperature, top_p, stop sequences, and for
// some the stream flag, metadata, seed, top_k and the penalties. Read and
// written by one table per place; what a target has no name for is dropped
// with a warning at the source's spelling (warn_unsampled).
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>

#include "dialects/common/borrowed_ir.h"
#include "dialects/common/style.h"
#include "toolwire/core/json_writer.h"
#include "toolwire/ir/request.h"

namespace toolwire::dialects {

// The dialect's names; an empty name: that place has no such field.
struct SamplingKeys {
  std::string_view max_tokens, temperature, top_p, stop;
  std::string_view stream, metadata;
  std::string_view seed, top_k, frequency_penalty, presence_penalty;
};

// Decodes `value` into `req` when `key` is one of `keys` (returns true):
// integers, numbers, a boolean, an array of stop strings (replacing earlier
// ones), a metadata object kept raw. False: not one of them.
template <class S>
Result<bool> decode_sampling_field(const SamplingKeys& keys, std::string_view key,
                                   json::element value, const json::Path& path,
                                   ir::BasicRequest<S>& req) {
  const auto is = [&](std::string_view name) { return !name.empty() && key == name; };
  if (is(keys.max_tokens)) {
    TW_ASSIGN(req.max_tokens, json::as_int64(value, path));
  } else if (is(keys.temperature)) {
    TW_ASSIGN(req.temperature, json::as_double(value, path));
  } else if (is(keys.top_p)) {
    TW_ASSIGN(req.top_p, json::as_double(value, path));
  } else if (is(keys.stop)) {
    TW_ASSIGN(json::array stops, json::as_array(value, path));
    req.stop.clear();
    size_t i = 0;
    for (json::element s : stops) {
      TW_ASSIGN(std::string_view stop, json::as_string(s, json::Path(path, i++)));
      req.stop.push_back(IrText<S>::keep(stop));
    }
  } else if (is(keys.seed)) {
    TW_ASSIGN(req.seed, json::as_int64(value, path));
  } else if (is(keys.top_k)) {
    TW_ASSIGN(req.top_k, json::as_int64(value, path));
  } else if (is(keys.frequency_penalty)) {
    TW_ASSIGN(req.frequency_penalty, json::as_double(value, path));
  } else if (is(keys.presence_penalty)) {
    TW_ASSIGN(req.presence_penalty, json::as_double(value, path));
  } else if (is(keys.stream)) {
    TW_ASSIGN(req.stream, json::as_bool(value, path));
  } else if (is(keys.metadata)) {
    if (!value.is_object()) return json::as_object(value, path).error();
    req.metadata = IrText<S>::raw_json(value);
  } else {
    return false;
  }
  return true;
}

// Whether `req` sets one of the fields `keys` names (stream and metadata
// aside): the caller opens its container (generationConfig...) only then.
template <class S>
bool has_sampling(const ir::BasicRequest<S>& req, const SamplingKeys& keys) {
  const auto named = [](std::string_view k, bool set) { return set && !k.empty(); };
  return named(keys.max_tokens, req.max_tokens.has_value()) ||
         named(keys.temperature, req.temperature.has_value()) ||
         named(keys.top_p, req.top_p.has_value()) || named(keys.stop, !req.stop.empty()) ||
         named(keys.seed, req.seed.has_value()) || named(keys.top_k, req.top_k.has_value()) ||
         named(keys.frequency_penalty, req.frequency_penalty.has_value()) ||
         named(keys.presence_penalty, req.presence_penalty.has_value());
}

// Writes the request's max tokens, temperature, top_p, stop sequences, seed,
// top_k and penalties that `keys` names, in that order (stream and metadata:
// request_tail.h).
template <class S>
void write_sampling(JsonWriter& w, const ir::BasicRequest<S>& req, const SamplingKeys& keys) {
  if (req.max_tokens && !keys.max_tokens.empty()) w.field(keys.max_tokens, *req.max_tokens);
  if (req.temperature && !keys.temperature.empty()) {
    w.key(keys.temperature);
    w.number(*req.temperature);
  }
  if (req.top_p && !keys.top_p.empty()) {
    w.key(keys.top_p);
    w.number(*req.top_p);
  }
  if (!req.stop.empty() && !keys.stop.empty()) {
    w.key(keys.stop);
    w.begin_array();
    for (const auto& s : req.stop) w.string(s);
    w.end_array();
  }
  if (req.seed && !keys.seed.empty()) w.field(keys.seed, *req.seed);
  if (req.top_k && !keys.top_k.empty()) w.field(keys.top_k, *req.top_k);
  if (req.frequency_penalty && !keys.frequency_penalty.empty()) {
    w.key(keys.frequency_penalty);
    w.number(*req.frequency_penalty);
  }
  if (req.presence_penalty && !keys.presence_penalty.empty()) {
    w.key(keys.presence_penalty);
    w.number(*req.presence_penalty);
  }
}

// Where `dialect` spells seed, top_k and the penalties ("" where it has no
// such field): the path of a warning about one of them.
std::string_view sampling_path(std::string_view dialect, std::string_view ir_field);

// A `dropped_sampling_field` warning for each of seed, top_k and the
// penalties that `req` sets and none of `places` (the target's tables, one per
// place it writes sampling) names.
template <class S>
void warn_unsampled(const ir::BasicRequest<S>& req, std::initializer_list<SamplingKeys> places,
                    std::string_view target, Warnings& warnings) {
  const auto named = [&](std::string_view SamplingKeys::*member) {
    for (const SamplingKeys& k : places)
      if (!(k.*member).empty()) return true;
    return false;
  };
  const auto check = [&](bool set, std::string_view SamplingKeys::*member, std::string_view ir) {
    if (!set || named(member)) return;
    std::string_view where = sampling_path(req.source_dialect, ir);
    warn(warnings, "dropped_sampling_field",
         where.empty() ? "$." + std::string(ir) : std::string(where),
         std::string(target) + " has no " + std::string(ir) + " field; not sent");
  };
  check(req.seed.has_value(), &SamplingKeys::seed, "seed");
  check(req.top_k.has_value(), &SamplingKeys::top_k, "top_k");
  check(req.frequency_penalty.has_value(), &SamplingKeys::frequency_penalty, "frequency_penalty");
  check(req.presence_penalty.has_value(), &SamplingKeys::presence_penalty, "presence_penalty");
}

// OpenAI's verbosity hint, for a target that has none.
template <class S>
void warn_no_verbosity(const ir::BasicRequest<S>& req, std::string_view target,
                       Warnings& warnings) {
  if (std::string_view(req.verbosity).empty()) return;
  warn(warnings, "dropped_verbosity",
       std::string_view(req.source_dialect) == "openai_responses" ? "$.text.verbosity"
                                                                  : "$.verbosity",
       std::string(target) + " has no verbosity hint; not sent");
}

}  // namespace toolwire::dialects
