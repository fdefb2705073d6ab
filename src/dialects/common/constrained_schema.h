// constrained_schema.h — whether a JSON schema stays inside what Anthropic's
// and Bedrock's constrained decoding take (output_config.format,
// outputConfig.textFormat): an object at the root, `additionalProperties:
// false` on every object with properties, and none of the keywords it
// refuses (numeric and length bounds, minItems over 1, oneOf, not, if,
// patternProperties...; a $ref outside the document). A schema written for
// OpenAI without `strict` often is not; the encoders then ask for it as a
// forced tool instead (forced_output.h), whose input schema takes any of it.
#pragma once

#include <string_view>

namespace toolwire::dialects {

// False too for text that is not a JSON object (the encoder's own check
// names that error).
bool fits_constrained_decoding(std::string_view schema);

}  // namespace toolwire::dialects
