// gen.h — a seeded random generator of IR conversations, responses and
// streams, covering what round trips must survive: many turns, parallel calls,
// error results, images in user messages and tool results, call ids Anthropic
// rejects ("call.1:x"), invalid-JSON arguments, signed thinking blocks, turns
// with text and tool calls, unicode and escapes in every string.
//
//   ConversationGen gen(seed);
//   ir::Request req = gen.request(/*turns=*/8);
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "toolwire/ir/request.h"
#include "toolwire/ir/response.h"
#include "toolwire/ir/stream.h"

namespace toolwire::testing {

// How many seeds the generated tests run: `fallback`, or TOOLWIRE_GEN_SEEDS
// from the environment for a deeper local run.
uint64_t generated_seeds(uint64_t fallback);

class ConversationGen {
 public:
  explicit ConversationGen(uint64_t seed) : rng_(seed) {}

  ir::Request request(int turns);
  ir::Response response();
  // The events a server would stream for `r`: text/arguments cut into random
  // fragments (at code point boundaries), parallel calls' deltas interleaved
  // when `interleave`.
  std::vector<ir::StreamEvent> stream_events(const ir::Response& r, bool interleave);

  // Building blocks, also used by the benchmark-style tests.
  std::string text(int min_words, int max_words);
  std::string call_id();
  std::string arguments(bool allow_invalid);
  ir::ImagePart image(bool allow_detail);
  ir::ToolDefinition tool(int which);

  int uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool chance(double p) { return std::bernoulli_distribution(p)(rng_); }

 private:
  std::vector<ir::Part> assistant_parts(const std::vector<ir::ToolDefinition>& tools,
                                        std::vector<std::string>& call_ids);
  std::vector<std::string> split(const std::string& s);

  std::mt19937_64 rng_;
  int id_counter_ = 0;
};

}  // namespace toolwire::testing
