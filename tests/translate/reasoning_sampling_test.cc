// Reasoning, seed, top_k, the penalties, verbosity and the fields the two
// OpenAI APIs share, across dialects (dialects/common/reasoning.h,
// sampling.h): the table rows for every dialect of the list, and wire
// requests translated as a client sends them. Each was dropped with
// dropped_unknown_field before these fields joined the IR.
#include <gtest/gtest.h>

#include "checked_translate.h"
#include "codec_kit.h"
#include "table_kit.h"

namespace toolwire::testing {
namespace {

// ---- Table rows (every dialect) ---------------------------------------------

TEST_P(TableTest, SeedTopKAndPenaltiesSpelling) {
  ir::Request r = ask();
  r.seed = 7;
  r.top_k = 40;
  r.frequency_penalty = 0.5;
  r.presence_penalty = 0.25;
  Warnings w;
  json wire = encode(r, w);
  expect_spelling(wire, {
                            {"openai_chat",
                             {{"/seed", 7},
                              {"/frequency_penalty", 0.5},
                              {"/presence_penalty", 0.25},
                              none_at("/top_k")}},
                            {"anthropic_messages", {{"/top_k", 40}, none_at("/seed")}},
                            {"openai_responses", {none_at("/seed"), none_at("/top_k")}},
                            {"gemini",
                             {{"/generationConfig/seed", 7},
                              {"/generationConfig/topK", 40},
                              {"/generationConfig/frequencyPenalty", 0.5},
                              {"/generationConfig/presencePenalty", 0.25}}},
                            {"bedrock_converse", {none_at("/inferenceConfig/seed")}},
                        });
  // What a dialect has no field for is warned, one warning per field.
  const std::map<std::string_view, size_t> dropped = {{"openai_chat", 1},
                                                      {"anthropic_messages", 3},
                                                      {"openai_responses", 4},
                                                      {"gemini", 0},
                                                      {"bedrock_converse", 4}};
  size_t n = 0;
  for (const Warning& x : w) n += x.code == "dropped_sampling_field";
  EXPECT_EQ(n, dropped.at(name())) << warnings_text(w);
  ir::Request back = decode_request(wire);
  EXPECT_EQ(back.seed, in({"openai_chat", "gemini"}) ? std::optional<int64_t>(7) : std::nullopt);
  EXPECT_EQ(back.top_k,
            in({"anthropic_messages", "gemini"}) ? std::optional<int64_t>(40) : std::nullopt);
  EXPECT_EQ(back.presence_penalty,
            in({"openai_chat", "gemini"}) ? std::optional(0.25) : std::nullopt);
}

TEST_P(TableTest, ReasoningEffortSpelling) {
  ir::Request r = ask();
  r.max_tokens = 32000;
  r.reasoning.emplace().effort = "high";
  Warnings w;
  json wire = encode(r, w);
  const json anthropic_thinking = {{"type", "enabled"}, {"budget_tokens", 24576}};
  expect_spelling(wire,
                  {
                      {"openai_chat", {{"/reasoning_effort", "high"}}},
                      {"openai_responses", {{"/reasoning/effort", "high"}}},
                      {"anthropic_messages", {{"/thinking", anthropic_thinking}}},
                      {"gemini", {{"/generationConfig/thinkingConfig/thinkingBudget", 24576}}},
                      {"bedrock_converse", {none_at("/additionalModelRequestFields")}},
                  });
  expect_loss(w, {{"anthropic_messages", "approximated_reasoning"},
                  {"gemini", "approximated_reasoning"},
                  {"bedrock_converse", "dropped_reasoning"}});
  ir::Request back = decode_request(wire);
  if (in({"openai_chat", "openai_responses"})) {
    ASSERT_TRUE(back.reasoning) << print(back);
    EXPECT_EQ(back.reasoning->effort, "high");
  } else if (in({"anthropic_messages", "gemini"})) {
    ASSERT_TRUE(back.reasoning) << print(back);
    EXPECT_EQ(back.reasoning->budget_tokens, 24576);
  } else {
    EXPECT_FALSE(back.reasoning) << print(back);
  }
}

TEST_P(TableTest, ReasoningBudgetSpelling) {
  ir::Request r = ask();
  r.max_tokens = 8000;
  r.reasoning.emplace().budget_tokens = 2048;
  Warnings w;
  json wire = encode(r, w);
  const json anthropic_thinking = {{"type", "enabled"}, {"budget_tokens", 2048}};
  expect_spelling(wire, {
                            {"openai_chat", {{"/reasoning_effort", "medium"}}},
                            {"openai_responses", {{"/reasoning/effort", "medium"}}},
                            {"anthropic_messages", {{"/thinking", anthropic_thinking}}},
                            {"gemini", {{"/generationConfig/thinkingConfig/thinkingBudget", 2048}}},
                            {"bedrock_converse", {none_at("/additionalModelRequestFields")}},
                        });
  expect_loss(w, {{"openai_chat", "approximated_reasoning"},
                  {"openai_responses", "approximated_reasoning"},
                  {"bedrock_converse", "dropped_reasoning"}});
}

TEST_P(TableTest, VerbositySpelling) {
  ir::Request r = ask();
  r.verbosity = "low";
  Warnings w;
  json wire = encode(r, w);
  expect_spelling(wire, {
                            {"openai_chat", {{"/verbosity", "low"}}},
                            {"openai_responses", {{"/text/verbosity", "low"}}},
                            {"anthropic_messages", {none_at("/verbosity")}},
                            {"gemini", {none_at("/verbosity")}},
                            {"bedrock_converse", {none_at("/verbosity")}},
                        });
  expect_loss(w, {"anthropic_messages", "gemini", "bedrock_converse"}, "dropped_verbosity");
  EXPECT_EQ(decode_request(wire).verbosity, in({"openai_chat", "openai_responses"}) ? "low" : "");
}

// ---- Wire requests ----------------------------------------------------------

json translate(std::string_view from, std::string_view to, const json& body, Warnings& warnings) {
  return checked_translate(from, to, body.dump(), warnings);
}

json chat(json extra) {
  json body = {{"model", "m"}, {"messages", {{{"role", "user"}, {"content", "hi"}}}}};
  body.update(extra);
  return body;
}
json anthropic(json extra) {
  json body = {
      {"model", "m"}, {"max_tokens", 16000}, {"messages", {{{"role", "user"}, {"content", "hi"}}}}};
  body.update(extra);
  return body;
}
json responses(json extra) {
  json body = {{"model", "m"}, {"input", "hi"}};
  body.update(extra);
  return body;
}
json gemini(json generation_config) {
  return {{"contents", {{{"role", "user"}, {"parts", {{{"text", "hi"}}}}}}},
          {"generationConfig", generation_config}};
}

TEST(ReasoningAcross, ChatEffortBecomesAnAnthropicBudgetWithinMaxTokens) {
  Warnings w;
  json out = translate("openai_chat", "anthropic_messages",
                       chat({{"reasoning_effort", "low"}, {"max_completion_tokens", 4096}}), w);
  EXPECT_EQ(out["thinking"], json({{"type", "enabled"}, {"budget_tokens", 1024}})) << out.dump();
  EXPECT_TRUE(has_warning(w, "approximated_reasoning", "$.reasoning_effort")) << warnings_text(w);
  EXPECT_FALSE(has_warning(w, "dropped_unknown_field")) << warnings_text(w);

  // high (24576) does not fit max_tokens 4096: the budget is max_tokens - 1.
  Warnings w2;
  out = translate("openai_chat", "anthropic_messages",
                  chat({{"reasoning_effort", "high"}, {"max_completion_tokens", 4096}}), w2);
  EXPECT_EQ(out["thinking"]["budget_tokens"], 4095) << out.dump();
}

TEST(ReasoningAcross, AnthropicThinkingIsNotSentWhereAnthropicWouldRefuseIt) {
  // Anthropic refuses thinking beside a temperature other than 1, a forced
  // tool choice (JSON mode goes out as one) or too small a max_tokens.
  const json cases[] = {
      chat({{"reasoning_effort", "medium"}, {"temperature", 0.2}}),
      chat({{"reasoning_effort", "medium"}, {"response_format", {{"type", "json_object"}}}}),
      chat({{"reasoning_effort", "medium"}, {"max_completion_tokens", 1000}}),
  };
  for (const json& body : cases) {
    Warnings w;
    json out = translate("openai_chat", "anthropic_messages", body, w);
    EXPECT_FALSE(out.contains("thinking")) << out.dump();
    EXPECT_TRUE(has_warning(w, "dropped_reasoning", "$.reasoning_effort")) << warnings_text(w);
  }
}

TEST(ReasoningAcross, AnthropicThinkingBecomesAnOpenAiEffort) {
  Warnings w;
  json out =
      translate("anthropic_messages", "openai_chat",
                anthropic({{"thinking", {{"type", "enabled"}, {"budget_tokens", 4000}}}}), w);
  EXPECT_EQ(out["reasoning_effort"], "medium") << out.dump();
  EXPECT_TRUE(has_warning(w, "approximated_reasoning", "$.thinking")) << warnings_text(w);
  EXPECT_FALSE(has_warning(w, "dropped_unknown_field")) << warnings_text(w);
}

TEST(ReasoningAcross, AnthropicOwnSpellingSurvivesSameDialect) {
  const json body = anthropic({{"thinking", {{"type", "adaptive"}}},
                               {"output_config", {{"effort", "high"}}},
                               {"top_k", 5}});
  Warnings w;
  json out = translate("anthropic_messages", "anthropic_messages", body, w);
  EXPECT_EQ(out["thinking"], body["thinking"]);
  EXPECT_EQ(out["output_config"], body["output_config"]);
  EXPECT_EQ(out["top_k"], 5);
  EXPECT_TRUE(w.empty()) << warnings_text(w);
  // Budgets and disabled too.
  for (const json& thinking :
       {json({{"type", "enabled"}, {"budget_tokens", 2000}}), json({{"type", "disabled"}})}) {
    Warnings w2;
    out = translate("anthropic_messages", "anthropic_messages", anthropic({{"thinking", thinking}}),
                    w2);
    EXPECT_EQ(out["thinking"], thinking);
    EXPECT_TRUE(w2.empty()) << warnings_text(w2);
  }
}

TEST(ReasoningAcross, AThinkingObjectWithMembersTheIrLacksStaysRaw) {
  const json thinking = {{"type", "enabled"}, {"budget_tokens", 2000}, {"display", "omitted"}};
  Warnings w;
  json out =
      translate("anthropic_messages", "anthropic_messages", anthropic({{"thinking", thinking}}), w);
  EXPECT_EQ(out["thinking"], thinking);
  Warnings w2;
  out = translate("anthropic_messages", "openai_chat", anthropic({{"thinking", thinking}}), w2);
  EXPECT_FALSE(out.contains("reasoning_effort")) << out.dump();
  EXPECT_TRUE(has_warning(w2, "dropped_unknown_field", "$.thinking")) << warnings_text(w2);
}

TEST(ReasoningAcross, GeminiThinkingConfigToTheOpenAiApis) {
  // A dynamic budget with thoughts: Responses' default effort and a summary.
  Warnings w;
  json out = translate(
      "gemini", "openai_responses",
      gemini({{"thinkingConfig", {{"thinkingBudget", -1}, {"includeThoughts", true}}}}), w);
  EXPECT_EQ(out["reasoning"], json({{"summary", "auto"}})) << out.dump();
  EXPECT_TRUE(w.empty()) << warnings_text(w);
  // Gemini 3's level (the REST enum's upper case too) is an effort word.
  Warnings w2;
  out = translate("gemini", "openai_chat", gemini({{"thinkingConfig", {{"thinkingLevel", "LOW"}}}}),
                  w2);
  EXPECT_EQ(out["reasoning_effort"], "low") << out.dump();
  EXPECT_FALSE(has_warning(w2, "dropped_unknown_field")) << warnings_text(w2);
  // And back into Gemini as it came (lower case).
  Warnings w3;
  out = translate("gemini", "gemini",
                  gemini({{"thinkingConfig", {{"thinkingLevel", "high"}, {"thinkingBudget", 0}}}}),
                  w3);
  EXPECT_EQ(out["generationConfig"]["thinkingConfig"],
            json({{"thinkingBudget", 0}, {"thinkingLevel", "high"}}));
  EXPECT_TRUE(w3.empty()) << warnings_text(w3);
}

TEST(ReasoningAcross, ResponsesReasoningIntoGemini) {
  Warnings w;
  json out =
      translate("openai_responses", "gemini",
                responses({{"reasoning", {{"effort", "minimal"}, {"summary", "detailed"}}}}), w);
  EXPECT_EQ(out["generationConfig"]["thinkingConfig"],
            json({{"thinkingBudget", 1024}, {"includeThoughts", true}}))
      << out.dump();
  EXPECT_TRUE(has_warning(w, "approximated_reasoning", "$.reasoning")) << warnings_text(w);
  // Chat has no summary: the effort goes, the summary is warned about.
  Warnings w2;
  out = translate("openai_responses", "openai_chat",
                  responses({{"reasoning", {{"effort", "minimal"}, {"summary", "detailed"}}}}), w2);
  EXPECT_EQ(out["reasoning_effort"], "minimal") << out.dump();
  EXPECT_TRUE(has_warning(w2, "dropped_reasoning", "$.reasoning")) << warnings_text(w2);
}

TEST(SamplingAcross, ChatSeedAndPenaltiesIntoGeminiAndAnthropic) {
  const json body = chat({{"seed", 42}, {"frequency_penalty", 0.5}, {"presence_penalty", -0.5}});
  Warnings w;
  json out = translate("openai_chat", "gemini", body, w);
  EXPECT_EQ(out["generationConfig"]["seed"], 42) << out.dump();
  EXPECT_EQ(out["generationConfig"]["frequencyPenalty"], 0.5);
  EXPECT_EQ(out["generationConfig"]["presencePenalty"], -0.5);
  EXPECT_TRUE(w.empty()) << warnings_text(w);
  Warnings w2;
  out = translate("openai_chat", "anthropic_messages", body, w2);
  EXPECT_FALSE(out.contains("seed"));
  EXPECT_TRUE(has_warning(w2, "dropped_sampling_field", "$.seed")) << warnings_text(w2);
  EXPECT_TRUE(has_warning(w2, "dropped_sampling_field", "$.presence_penalty")) << warnings_text(w2);
  // Gemini's topK into Anthropic's top_k.
  Warnings w3;
  out = translate("gemini", "anthropic_messages", gemini({{"topK", 20}, {"seed", 1}}), w3);
  EXPECT_EQ(out["top_k"], 20) << out.dump();
  EXPECT_TRUE(has_warning(w3, "dropped_sampling_field", "$.generationConfig.seed"))
      << warnings_text(w3);
}

TEST(SamplingAcross, TheOpenAiApisShareTheirCommonFieldsAndVerbosity) {
  const json shared = {{"user", "u-1"},
                       {"service_tier", "flex"},
                       {"prompt_cache_key", "k"},
                       {"safety_identifier", "s"}};
  Warnings w;
  json body = chat(shared);
  body["verbosity"] = "low";
  body["store"] = true;
  json out = translate("openai_chat", "openai_responses", body, w);
  for (const auto& [key, value] : shared.items()) EXPECT_EQ(out[key], value) << key;
  EXPECT_EQ(out["text"], json({{"verbosity", "low"}})) << out.dump();
  // `store` means something else in each: still dropped with a warning.
  EXPECT_FALSE(out.contains("store"));
  EXPECT_TRUE(has_warning(w, "dropped_unknown_field", "$.store")) << warnings_text(w);
  EXPECT_EQ(w.size(), 1u) << warnings_text(w);

  Warnings w2;
  json rbody = responses(shared);
  rbody["text"] = {{"verbosity", "high"}};
  out = translate("openai_responses", "openai_chat", rbody, w2);
  for (const auto& [key, value] : shared.items()) EXPECT_EQ(out[key], value) << key;
  EXPECT_EQ(out["verbosity"], "high") << out.dump();
  EXPECT_TRUE(w2.empty()) << warnings_text(w2);

  // Anthropic has neither: each is warned at the client's spelling.
  Warnings w3;
  translate("openai_responses", "anthropic_messages", rbody, w3);
  EXPECT_TRUE(has_warning(w3, "dropped_verbosity", "$.text.verbosity")) << warnings_text(w3);
  EXPECT_TRUE(has_warning(w3, "dropped_unknown_field", "$.user")) << warnings_text(w3);
}

}  // namespace
}  // namespace toolwire::testing
