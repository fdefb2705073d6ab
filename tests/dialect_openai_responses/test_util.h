// The codec test kit (tests/support/codec_kit.h) bound to the openai_responses codec.
#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "codec_kit.h"
#include "toolwire/dialects/codec.h"
#include "toolwire/dialects/dialect.h"

namespace toolwire::dialects::openai_responses_test {

using testing::describe;
using testing::fixture_lines;
using testing::has_warning;
using testing::read_fixture;
using testing::StreamResult;
using testing::warnings_text;

inline const Codec& responses() { return *find_codec("openai_responses"); }
inline const Codec& chat() { return *find_codec("openai_chat"); }
inline const Codec& anthropic() { return *find_codec("anthropic_messages"); }

inline StreamResult decode_stream(std::string_view bytes, const std::vector<size_t>& cuts = {}) {
  return testing::decode_stream(responses(), bytes, cuts);
}

// The JSON without null members (the decoders read null as absent), recursively.
inline nlohmann::json without_nulls(nlohmann::json j) {
  if (j.is_object()) {
    nlohmann::json out = nlohmann::json::object();
    for (auto& [k, v] : j.items())
      if (!v.is_null()) out[k] = without_nulls(v);
    return out;
  }
  if (j.is_array())
    for (auto& v : j) v = without_nulls(v);
  return j;
}

}  // namespace toolwire::dialects::openai_responses_test
