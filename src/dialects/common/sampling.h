// sampling.h — the request fields every dialect has under its own names,
// wherever they sit (top level, Gemini's generationConfig, Bedrock's
// inferenceConfig): max tokens, temperature, top_p, stop sequences, and for
// some the stream flag and metadata. Read and written by one table per place.
#pragma once

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

// Writes the request's max tokens, temperature, top_p and stop sequences
// that `keys` names, in that order (stream and metadata: request_tail.h).
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
}

}  // namespace toolwire::dialects
