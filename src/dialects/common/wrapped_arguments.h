// wrapped_arguments.h — tool-call arguments in the dialects whose call input
// is a JSON value rather than text (Anthropic and Bedrock `input`, Gemini
// `args`): text that is not the JSON the dialect takes is sent as
// {"__toolwire_invalid_arguments": "<text>"} and decoded back exactly, so
// nothing the model produced is lost.
#pragma once

#include <string_view>

#include "dialects/common/borrowed_ir.h"
#include "dialects/common/json_in.h"
#include "toolwire/core/json_writer.h"
#include "toolwire/core/warnings.h"

namespace toolwire::dialects {

inline constexpr std::string_view kInvalidArgumentsKey = "__toolwire_invalid_arguments";

// The call's arguments from its input value, undoing the wrapping.
template <class S>
void decode_wrapped_arguments(json::element input, ir::BasicToolCallPart<S>& call) {
  json::object obj;
  if (!input.get_object().get(obj) && obj.size() == 1) {
    auto field = *obj.begin();
    std::string_view raw;
    if (field.key == kInvalidArgumentsKey && !field.value.get_string().get(raw)) {
      call.arguments = IrText<S>::keep(raw);  // the model's text, kept verbatim
      call.arguments_valid = false;
      return;
    }
  }
  call.arguments = IrText<S>::raw_json(input);
  call.arguments_valid = true;
}

// Writes the input value: valid arguments as they are (empty ones as {}),
// anything else wrapped, with an invalid_arguments_wrapped warning.
// `object_only`: the dialect takes an object, not any JSON value. With
// `raw_verified` (EncodeOptions) valid arguments are not parsed again.
void write_wrapped_arguments(std::string_view arguments, bool valid, bool raw_verified,
                             bool object_only, const json::Path& path, JsonWriter& w,
                             Warnings& warnings);

}  // namespace toolwire::dialects
