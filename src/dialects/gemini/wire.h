// wire.h — private declarations of the Google Gemini codec (v1beta
// generateContent / streamGenerateContent?alt=sse). See README.md here.
//
// One translation direction per file: request_decoder.cc, request_encoder.cc,
// response_decoder.cc, response_encoder.cc, stream_decoder.cc,
// stream_encoder.cc, errors.cc. Parts shared by requests, responses and
// streams live in content_decoder.cc / content_encoder.cc; function names,
// call ids and schemas in names.cc / schema.cc.
#pragma once

#include <cstddef>
#include <cstdint>

#include "dialects/common/placed_member.h"
#include "dialects/common/source_map.h"
#include "dialects/common/wire_functions.h"
#include "dialects/common/wrapped_arguments.h"

namespace toolwire::dialects::gemini {

inline constexpr std::string_view kDialect = "gemini";
// Function names: ^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$ (names.cc).
inline constexpr size_t kMaxToolNameLength = 64;

// The value Gemini documents for a call it did not sign (a history from
// another model): written on the first call of a model turn from another
// dialect that has no signature, so Gemini 3 accepts the history.
inline constexpr std::string_view kSkipSignature = "skip_thought_signature_validator";

// Extra fields kept from inside generationConfig carry this key prefix
// ("generationConfig.topK"); the encoder writes them back inside it.
inline constexpr std::string_view kGenerationConfigPrefix = "generationConfig.";
// Candidate fields the IR has no place for ("candidates[0].safetyRatings").
inline constexpr std::string_view kCandidatePrefix = "candidates[0].";

// Requests, responses, streams and errors (dialects/common/wire_functions.h).
TW_DIALECT_FUNCTIONS;

// ---- keys (content_decoder.cc) ----

// The protobuf JSON mapping accepts each field's lowerCamelCase name and its
// original snake_case one ("function_declarations"): a key with '_' is
// compared in camelCase. Returns `key`, or its camelCase form in `scratch`.
std::string_view camel_key(std::string_view key, std::string& scratch);

// Fields of one object in one pass (dialects/common/fields.h), keys compared
// after camel_key.
template <size_t N>
json::Fields<N> pick(json::object obj, const std::string_view (&keys)[N]) {
  json::Fields<N> f;
  std::string scratch;
  for (auto [raw_key, value] : obj) {
    const std::string_view key = camel_key(raw_key, scratch);
    if (key.empty()) continue;
    for (size_t i = 0; i < N; ++i) {
      // Length and first byte first: most candidates differ there.
      if (key.size() == keys[i].size() && key[0] == keys[i][0] &&
          json::same_bytes(key.data(), keys[i].data(), key.size())) {
        f.e[i] = value;
        f.present[i] = true;
        f.has[i] = !value.is_null();
        break;
      }
    }
  }
  return f;
}

// `contents` and `parts` may be one object instead of a list (the REST API
// accepts both); calls `fn(element, path)` for each entry.
template <class F>
Status for_each_entry(json::element value, const json::Path& path, F&& fn) {
  if (value.is_object()) {
    const json::Path p(path, size_t{0});
    return fn(value, p);
  }
  TW_ASSIGN(json::array arr, json::as_array(value, path));
  size_t i = 0;
  for (json::element e : arr) {
    const json::Path p(path, i++);
    TW_TRY(fn(e, p));
  }
  return Status::Ok();
}

// The data fields of a Part.
enum PartField {
  kText,
  kThought,
  kThoughtSignature,
  kFunctionCall,
  kFunctionResponse,
  kInlineData,
  kFileData,
  kPartFields
};
inline constexpr std::string_view kPartKeys[kPartFields] = {
    "text",       "thought", "thoughtSignature", "functionCall", "functionResponse",
    "inlineData", "fileData"};
using PartFields = json::Fields<kPartFields>;

// True when `text` has a line break. (Not find_first_of("\r\n"), which
// calls memchr once per byte of `text`.)
inline bool has_line_break(std::string_view text) {
  for (char c : text)
    if (c == '\n' || c == '\r') return true;
  return false;
}

// ---- names and ids (names.cc) ----

// True when Gemini accepts `name` as a function name.
bool is_valid_name(std::string_view name);
// The reversible name map (README "Function names"): a name that starts
// with a digit or '-' after any '_'s gets one more leading '_'; from_gemini
// removes it. Any other name passes unchanged.
std::string_view to_gemini_name(std::string_view name, std::string& scratch);
std::string_view from_gemini_name(std::string_view name);
// The invalid_argument error for a name Gemini refuses.
Error invalid_name(std::string_view name, const json::Path& path);
// The name as Gemini takes it, or the invalid_argument error naming `path`.
Result<std::string_view> gemini_name_or_error(std::string_view name, std::string& scratch,
                                              const json::Path& path);
// A deterministic id for a call Gemini sent without one: "call_" + 16 hex
// digits of a hash of `salt` (the response id, or the content index in a
// request), the call's ordinal, its name and its arguments (whitespace
// outside strings ignored).
std::string synthesize_call_id(std::string_view salt, size_t ordinal, std::string_view name,
                               std::string_view args);

// ---- schemas (schema.cc) ----

// Parses `text` on `parser` through a reused padded copy (no allocation per
// call, unlike simdjson's realloc_if_needed; one buffer per thread): use the
// element before the next parse_padded call. False when it is not JSON.
bool parse_padded(simdjson::dom::parser& parser, std::string_view text, json::element& out);

// A decoded `parameters` schema as JSON Schema text: Gemini's upper-case
// types ("OBJECT") in lower case. Refuses a schema whose type is not object.
Status decode_schema(json::element schema, const json::Path& path, std::string& out);
// A tool's JSON Schema reduced to Gemini's subset (src/schema/gemini_schema.cc),
// as text; empty when it declares no properties (`parameters` is omitted:
// Gemini refuses an OBJECT with no properties).
// `*reduced` (when given) tells whether the schema had to be rewritten.
Status encode_schema(std::string_view schema, const json::Path& path, std::string& out,
                     bool* reduced = nullptr);
// The two ways encode_schema reduces a schema that is not already inside the
// subset, for the test that holds them to the same output: the exporter
// (nlohmann), and the same rules written from the DOM (false when the schema
// needs a rewrite only the exporter does).
Status export_schema(std::string_view schema, const json::Path& path, std::string& out);
bool scrub_schema(std::string_view schema, std::string& out);

// ---- shared by the decoders (content_decoder.cc) ----

// A model part (text, thought, functionCall; anything else as UnknownPart)
// appended to `parts`. `call_ordinal` counts the calls of the content so far;
// `salt` seeds synthesized ids. `ids` receives the wire ids of the calls.
template <class S, class Parts>
Status decode_model_part(json::element part, const json::Path& path, std::string_view salt,
                         size_t& call_ordinal, Parts& parts);

// `args` → arguments text, undoing the invalid-arguments wrapper.
template <class S>
void decode_args(json::element args, ir::BasicToolCallPart<S>& call);

// finishReason → IR (has_calls: a STOP turn with calls is a tool-call turn).
ir::FinishReason decode_finish_reason(std::string_view raw, bool has_calls);
std::string_view encode_finish_reason(const ir::FinishReason& reason, bool has_calls);

// usageMetadata → IR usage.
Status decode_usage(json::element usage, const json::Path& path, ir::Usage& out);
// Writes "usageMetadata":{...} (nothing when the usage is empty).
void write_usage(JsonWriter& w, const ir::Usage& usage);

// ---- shared by the encoders (content_encoder.cc) ----

// Writes a functionCall part (with its thoughtSignature, or `fallback_signature`
// when it has none and that is not empty, and `at`'s placed members). Fails
// on a name Gemini refuses.
template <class S>
Status write_call_part(const ir::BasicToolCallPart<S>& call, std::string_view fallback_signature,
                       bool raw_verified, const json::Path& path, JsonWriter& w, Warnings& warnings,
                       const PlaceAt& at = {});
// Writes `args` for raw arguments text (wrapping what is not a JSON object).
void write_args(std::string_view arguments, bool valid, bool raw_verified, const json::Path& path,
                JsonWriter& w, Warnings& warnings);
// Writes a model turn's parts (text, thought, calls; a signature-only
// thought right after a text rides on that text part). Returns the number
// of parts written. Warning paths are the client's where `places` knows
// IR message `message`; `placed`: a Gemini request's part members, written
// back into their parts.
template <class S, class Parts>
Result<size_t> write_model_parts(const Parts& parts, bool same, bool in_request, bool raw_verified,
                                 const json::Path& path, JsonWriter& w, Warnings& warnings,
                                 const SourcePlaces& places = {}, size_t message = 0,
                                 std::vector<PlacedMember>* placed = nullptr);
// Writes "candidates":[{"content":{"parts":[...],"role":"model"}, ...}], the
// one candidate both encoders write: `parts(w)` writes the parts, `tail(w)` the
// candidate's fields after its content (each returning Status).
template <class Parts, class Tail>
Status write_candidate(JsonWriter& w, Parts&& parts, Tail&& tail) {
  w.key("candidates");
  w.begin_array();
  w.begin_object();
  w.key("content");
  w.begin_object();
  w.key("parts");
  w.begin_array();
  TW_TRY(parts(w));
  w.end_array();
  w.field("role", "model");
  w.end_object();
  TW_TRY(tail(w));
  w.end_object();
  w.end_array();
  return Status::Ok();
}
// The image MIME type a URL's extension names (fileData wants one); empty: none.
std::string_view media_from_url(std::string_view url);
// An image as an inlineData (base64) or fileData (URL) part body.
template <class S>
void write_image(const ir::BasicImagePart<S>& image, const json::Path& path, JsonWriter& w,
                 Warnings& warnings, const PlaceAt& at = {});

}  // namespace toolwire::dialects::gemini
