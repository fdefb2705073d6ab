#include <gtest/gtest.h>

#include <thread>

#include "test_tools.h"
#include "toolwire/tools/registry.h"

using namespace toolwire;
using namespace toolwire::tools;
using tools_test::call;
using tools_test::text_of;

TEST(Registry, RegisterAndDispatch) {
  Registry reg;
  ASSERT_TRUE(reg.add(tools_test::weather_spec()).ok());
  EXPECT_EQ(reg.size(), 1u);
  ir::ToolResultPart r = reg.dispatch(call("call_1", "get_weather", R"({"city":"Oslo"})"));
  EXPECT_FALSE(r.is_error) << text_of(r);
  EXPECT_EQ(r.call_id, "call_1");
  EXPECT_EQ(text_of(r), "sunny in Oslo (call_1)");
}

TEST(Registry, RefusesDuplicatesBadNamesBadSchemasNoHandler) {
  Registry reg;
  ASSERT_TRUE(reg.add(tools_test::weather_spec()).ok());
  Status dup = reg.add(tools_test::weather_spec());
  ASSERT_FALSE(dup.ok());
  EXPECT_NE(dup.error().message.find("already registered"), std::string::npos);

  EXPECT_FALSE(reg.add(tools_test::weather_spec("bad name")).ok());

  ToolSpec bad = tools_test::weather_spec("bad_schema");
  bad.input_schema = R"({"type":"object","properties":{"city":{"type":"strng"}}})";
  Status st = reg.add(bad);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("bad_schema"), std::string::npos) << st.error().message;
  EXPECT_NE(st.error().message.find("invalid schema"), std::string::npos) << st.error().message;

  ToolSpec not_object = tools_test::weather_spec("not_object");
  not_object.input_schema = R"({"type":"string"})";
  EXPECT_FALSE(reg.add(not_object).ok());

  ToolSpec no_handler = tools_test::weather_spec("no_handler");
  no_handler.handler = SyncHandler();
  EXPECT_FALSE(reg.add(no_handler).ok());
  EXPECT_EQ(reg.size(), 1u);
}

TEST(Registry, DottedNamesAreFoundByWireName) {
  Registry reg;
  ASSERT_TRUE(reg.add(tools_test::weather_spec("agent.spawn")).ok());
  EXPECT_FALSE(reg.add(tools_test::weather_spec("agent__spawn")).ok());  // wire name taken
  const Tool* t = reg.find("agent__spawn");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t, reg.find("agent.spawn"));
  EXPECT_EQ(t->definition().name, "agent__spawn");
  ir::ToolResultPart r = reg.dispatch(call("c", "agent__spawn", R"({"city":"x"})"));
  EXPECT_FALSE(r.is_error) << text_of(r);
}

TEST(Registry, UnknownToolNamesTheAvailableOnes) {
  Registry reg;
  ASSERT_TRUE(reg.add(tools_test::weather_spec()).ok());
  ASSERT_TRUE(reg.add(tools_test::weather_spec("fs.read")).ok());
  ir::ToolResultPart r = reg.dispatch(call("c9", "get_wether", "{}"));
  EXPECT_TRUE(r.is_error);
  EXPECT_EQ(r.call_id, "c9");
  EXPECT_EQ(text_of(r), "unknown tool 'get_wether'; available tools: get_weather, fs__read");
}

TEST(Registry, InvalidJsonArguments) {
  Registry reg;
  ASSERT_TRUE(reg.add(tools_test::weather_spec()).ok());
  ir::ToolResultPart r = reg.dispatch(call("c1", "get_weather", R"({"city": "Os)"));
  EXPECT_TRUE(r.is_error);
  EXPECT_EQ(r.call_id, "c1");
  EXPECT_NE(text_of(r).find("not valid JSON"), std::string::npos) << text_of(r);

  ir::ToolCallPart flagged = call("c2", "get_weather", R"({"city":"Oslo"})");
  flagged.arguments_valid = false;  // the decoder said so: trust it
  EXPECT_TRUE(reg.dispatch(flagged).is_error);
}

TEST(Registry, ValidationFailureIsAnErrorResultTheModelCanRead) {
  Registry reg;
  bool ran = false;
  ToolSpec s = tools_test::weather_spec();
  s.handler = SyncHandler([&](const nlohmann::json&, ToolContext&) {
    ran = true;
    return ToolOutput::text("x");
  });
  ASSERT_TRUE(reg.add(std::move(s)).ok());
  ir::ToolResultPart r = reg.dispatch(call("c", "get_weather", R"({"town":"Oslo"})"));
  EXPECT_TRUE(r.is_error);
  EXPECT_FALSE(ran);
  EXPECT_EQ(text_of(r),
            "invalid arguments for tool 'get_weather':\n/city: required property missing");
  r = reg.dispatch(call("c", "get_weather", R"({"city":"Oslo","unit":"k"})"));
  EXPECT_TRUE(r.is_error);
  EXPECT_NE(text_of(r).find("/unit: "), std::string::npos) << text_of(r);
  // "" means no arguments ({}), which still has to validate.
  r = reg.dispatch(call("c", "get_weather", ""));
  EXPECT_NE(text_of(r).find("/city: required property missing"), std::string::npos) << text_of(r);
}

TEST(Registry, HandlerExceptionBecomesErrorWithMessageOnly) {
  Registry reg;
  ToolSpec s = tools_test::weather_spec();
  s.handler = SyncHandler([](const nlohmann::json&, ToolContext&) -> ToolOutput {
    throw std::runtime_error("database is down");
  });
  ASSERT_TRUE(reg.add(std::move(s)).ok());
  ir::ToolResultPart r = reg.dispatch(call("c", "get_weather", R"({"city":"Oslo"})"));
  EXPECT_TRUE(r.is_error);
  EXPECT_EQ(text_of(r), "tool 'get_weather' failed: database is down");

  ToolSpec t = tools_test::weather_spec("throws_int");
  t.handler = SyncHandler([](const nlohmann::json&, ToolContext&) -> ToolOutput { throw 42; });
  ASSERT_TRUE(reg.add(std::move(t)).ok());
  r = reg.dispatch(call("c", "throws_int", R"({"city":"Oslo"})"));
  EXPECT_TRUE(r.is_error);
  EXPECT_EQ(text_of(r), "tool 'throws_int' failed: unknown exception");
}

TEST(Registry, CallbackAndFutureHandlers) {
  Registry reg;
  ToolSpec cb = tools_test::weather_spec("cb");
  cb.handler = CallbackHandler([](const nlohmann::json& a, ToolContext ctx, Completion done) {
    std::thread([a, ctx, done] {
      done(ToolOutput::text("cb " + a["city"].get<std::string>() + " " + ctx.call_id));
      done(ToolOutput::error("second completion is ignored"));
    }).detach();
  });
  ASSERT_TRUE(reg.add(std::move(cb)).ok());
  ToolSpec fut = tools_test::weather_spec("fut");
  fut.handler = FutureHandler([](const nlohmann::json& a, ToolContext) {
    std::string city = a["city"];
    return std::async(std::launch::async, [city] { return ToolOutput::text("fut " + city); });
  });
  ASSERT_TRUE(reg.add(std::move(fut)).ok());
  ToolSpec fut_throw = tools_test::weather_spec("fut_throw");
  fut_throw.handler = FutureHandler([](const nlohmann::json&, ToolContext) {
    return std::async(std::launch::async,
                      []() -> ToolOutput { throw std::runtime_error("async boom"); });
  });
  ASSERT_TRUE(reg.add(std::move(fut_throw)).ok());

  ir::ToolResultPart r = reg.dispatch(call("k1", "cb", R"({"city":"Rome"})"));
  EXPECT_FALSE(r.is_error);
  EXPECT_EQ(text_of(r), "cb Rome k1");
  r = reg.dispatch(call("k2", "fut", R"({"city":"Lima"})"));
  EXPECT_EQ(text_of(r), "fut Lima");
  r = reg.dispatch(call("k3", "fut_throw", R"({"city":"Lima"})"));
  EXPECT_TRUE(r.is_error);
  EXPECT_EQ(text_of(r), "tool 'fut_throw' failed: async boom");
}

TEST(Registry, CallbackHandlerTimesOutAtDeadlineAndIsCancelled) {
  Registry reg;
  auto saw_cancel = std::make_shared<std::atomic<bool>>(false);
  ToolSpec cb = tools_test::weather_spec("never");
  cb.handler =
      CallbackHandler([saw_cancel](const nlohmann::json&, ToolContext ctx, Completion done) {
        std::thread([ctx, done, saw_cancel] {
          bool c = ctx.cancel.wait_for(std::chrono::seconds(5));
          saw_cancel->store(c);
          done(ToolOutput::text("late"));
        }).detach();
      });
  ASSERT_TRUE(reg.add(std::move(cb)).ok());
  ToolContext ctx;
  ctx.deadline = Clock::now() + std::chrono::milliseconds(50);
  auto t0 = Clock::now();
  ir::ToolResultPart r = reg.dispatch(call("c", "never", R"({"city":"x"})"), ctx);
  EXPECT_LT(Clock::now() - t0, std::chrono::seconds(2));
  EXPECT_TRUE(r.is_error);
  EXPECT_EQ(text_of(r), "tool 'never' timed out");
  for (int i = 0; i < 200 && !saw_cancel->load(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_TRUE(saw_cancel->load());
}

TEST(Registry, StrictToolsDropNullForOptionalProperties) {
  Registry reg;
  ToolSpec s = tools_test::weather_spec();
  s.strict = true;
  s.handler =
      SyncHandler([](const nlohmann::json& a, ToolContext&) { return ToolOutput::json(a); });
  ASSERT_TRUE(reg.add(std::move(s)).ok());
  ir::ToolResultPart r = reg.dispatch(call("c", "get_weather", R"({"city":"Oslo","unit":null})"));
  EXPECT_FALSE(r.is_error) << text_of(r);
  EXPECT_EQ(text_of(r), R"({"city":"Oslo"})");
  // A required property is never dropped: null there is still an error.
  r = reg.dispatch(call("c", "get_weather", R"({"city":null,"unit":null})"));
  EXPECT_TRUE(r.is_error);
  EXPECT_NE(text_of(r).find("/city"), std::string::npos) << text_of(r);
}

TEST(Registry, DeeplyNestedArgumentsAreRefusedNotCrashed) {
  Registry reg;
  ToolSpec s = tools_test::weather_spec("any");
  s.input_schema =
      R"({"type":"object","$defs":{"t":{"anyOf":[{"type":"array","items":{"$ref":"#/$defs/t"}},
      {"type":"integer"}]}},"properties":{"t":{"$ref":"#/$defs/t"}}})";
  ASSERT_TRUE(reg.add(std::move(s)).ok());
  std::string deep = R"({"t":)" + std::string(100000, '[') + std::string(100000, ']') + "}";
  ir::ToolResultPart r = reg.dispatch(call("c", "any", deep));
  EXPECT_TRUE(r.is_error);
  EXPECT_NE(text_of(r).find("nested deeper"), std::string::npos) << text_of(r).substr(0, 200);
}
