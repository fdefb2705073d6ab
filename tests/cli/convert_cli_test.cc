// `toolwire convert` end to end: the built binary, fixtures on stdin, the
// translation on stdout, warnings and errors (naming the JSON path) on stderr.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "subprocess.h"

namespace {

using toolwire::testing::Subprocess;

using nlohmann::json;

struct CliRun {
  int exit_code = -1;
  std::string out, err;
};

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string fixture(const std::string& name) {
  return slurp(std::string(TOOLWIRE_TEST_DATA) + "/wire/" + name);
}

// Runs `toolwire convert <args>` with `input` on stdin.
CliRun convert(const std::string& args, const std::string& input) {
  static int counter = 0;
  std::string base = ::testing::TempDir() + "/tw_cli_" + std::to_string(::getpid()) + "_" +
                     std::to_string(counter++);
  std::ofstream(base + ".in", std::ios::binary) << input;
  std::string cmd = std::string("'") + TOOLWIRE_BINARY + "' convert " + args + " < '" + base +
                    ".in' > '" + base + ".out' 2> '" + base + ".err'";
  int status = std::system(cmd.c_str());
  CliRun r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
  r.out = slurp(base + ".out");
  r.err = slurp(base + ".err");
  for (const char* ext : {".in", ".out", ".err"}) std::remove((base + ext).c_str());
  return r;
}

// The documented delta.tool_calls listing as a real OpenAI chunk stream.
std::string openai_tool_call_sse() {
  auto chunk = [](json delta, json finish) {
    json c = {
        {"id", "chatcmpl-cli"},
        {"object", "chat.completion.chunk"},
        {"created", 1700000000},
        {"model", "gpt-4o"},
        {"choices", json::array({{{"index", 0}, {"delta", delta}, {"finish_reason", finish}}})}};
    return "data: " + c.dump() + "\n\n";
  };
  std::string sse = chunk({{"role", "assistant"}, {"content", nullptr}}, nullptr);
  std::istringstream in(fixture("openai-chat-stream-tool-calls.delta-tool_calls.jsonl"));
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    json d = json::parse(line);
    sse += d.is_null() ? chunk(json::object(), "tool_calls") : chunk({{"tool_calls", d}}, nullptr);
  }
  return sse + "data: [DONE]\n\n";
}

std::vector<json> sse_data(const std::string& sse) {
  std::vector<json> events;
  std::istringstream in(sse);
  std::string line;
  while (std::getline(in, line))
    if (line.starts_with("data: ") && line != "data: [DONE]")
      events.push_back(json::parse(line.substr(6)));
  return events;
}

TEST(ConvertCli, RequestOpenAIToAnthropic) {
  CliRun r = convert("--from openai --to anthropic --kind request",
                     fixture("openai-chat-tool-calls.request.json"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json out = json::parse(r.out);
  EXPECT_EQ(out["model"], "gpt-5.4");
  EXPECT_EQ(out["tools"][0]["name"], "get_current_weather");
  EXPECT_EQ(out["tools"][0]["input_schema"]["required"], json::array({"location"}));
  EXPECT_EQ(out["tool_choice"], json::parse(R"({"type":"auto"})"));
  EXPECT_EQ(out["max_tokens"], 4096);
  EXPECT_NE(r.err.find("defaulted_max_tokens"), std::string::npos) << r.err;  // warnings on stderr
}

// Warnings name the client's own paths (docs/translation.md, gap 19): a
// leading system message is not an IR message, yet the image's detail and the
// assistant's name are named where the client wrote them.
TEST(ConvertCli, WarningsNameTheClientsPaths) {
  const json body = {
      {"model", "m"},
      {"reasoning_effort", "low"},
      {"messages",
       {{{"role", "system"}, {"content", "Be brief."}},
        {{"role", "user"},
         {"content",
          {{{"type", "image_url"},
            {"image_url", {{"url", "https://example.com/a.png"}, {"detail", "high"}}}}}}},
        {{"role", "assistant"}, {"name", "helper"}, {"content", "Looked."}},
        {{"role", "user"}, {"content", "And?"}}}}};
  CliRun r = convert("--from openai --to anthropic --kind request", body.dump());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("dropped_image_detail at $.messages[1].content[0].image_url.detail"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("dropped_message_name at $.messages[2].name"), std::string::npos) << r.err;
  // The effort became a thinking budget, said at the client's field.
  EXPECT_NE(r.err.find("approximated_reasoning at $.reasoning_effort"), std::string::npos) << r.err;
  EXPECT_EQ(json::parse(r.out)["thinking"]["budget_tokens"], 1024) << r.out;
}

TEST(ConvertCli, RequestAnthropicToOpenAI) {
  CliRun r = convert("--from anthropic --to openai --kind request",
                     fixture("anthropic-messages-tool-result.request.json"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json out = json::parse(r.out);
  const json& msgs = out["messages"];
  ASSERT_EQ(msgs.size(), 3u) << r.out;
  EXPECT_EQ(msgs[1]["tool_calls"][0]["id"], "toolu_01A09q90qw90lq917835lq9");
  EXPECT_EQ(json::parse(msgs[1]["tool_calls"][0]["function"]["arguments"].get<std::string>()),
            json::parse(R"({"location":"San Francisco, CA","unit":"celsius"})"));
  EXPECT_EQ(msgs[2]["role"], "tool");
  EXPECT_EQ(msgs[2]["tool_call_id"], "toolu_01A09q90qw90lq917835lq9");
}

TEST(ConvertCli, ResponsesBothDirections) {
  CliRun r = convert("--from openai --to anthropic --kind response",
                     fixture("openai-chat-tool-calls.response.json"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json a = json::parse(r.out);
  EXPECT_EQ(a["stop_reason"], "tool_use");
  EXPECT_EQ(a["content"].back()["type"], "tool_use");
  EXPECT_EQ(a["content"].back()["input"], json::parse(R"({"location":"Boston, MA"})"));

  r = convert("--from anthropic --to openai --kind response",
              fixture("anthropic-messages-tool-use.response.json"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json o = json::parse(r.out);
  EXPECT_EQ(o["object"], "chat.completion");
  EXPECT_EQ(o["choices"][0]["finish_reason"], "tool_calls");
  EXPECT_EQ(o["choices"][0]["message"]["tool_calls"][0]["function"]["name"], "get_weather");
}

TEST(ConvertCli, StreamAnthropicToOpenAI) {
  CliRun r = convert("--from anthropic --to openai --kind stream",
                     fixture("anthropic-messages-stream-tool-use.sse"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.out.ends_with("data: [DONE]\n\n")) << r.out;
  std::string args, id;
  for (const json& c : sse_data(r.out)) {
    if (!c.contains("choices") || c["choices"].empty()) continue;
    const json& d = c["choices"][0]["delta"];
    if (!d.contains("tool_calls")) continue;
    if (d["tool_calls"][0].contains("id")) id = d["tool_calls"][0]["id"];
    args += d["tool_calls"][0]["function"].value("arguments", "");
  }
  EXPECT_EQ(id, "toolu_01T1x1fJ34qAmk2tNTrN7Up6");
  EXPECT_EQ(json::parse(args),
            json::parse(R"({"location": "San Francisco, CA", "unit": "fahrenheit"})"));
}

TEST(ConvertCli, StreamOpenAIToAnthropic) {
  CliRun r = convert("--from openai --to anthropic --kind stream", openai_tool_call_sse());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("event: message_start\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("event: message_stop\n"), std::string::npos) << r.out;
  std::string args;
  std::string stop;
  for (const json& e : sse_data(r.out)) {
    if (e["type"] == "content_block_delta" && e["delta"]["type"] == "input_json_delta")
      args += e["delta"]["partial_json"].get<std::string>();
    if (e["type"] == "message_delta") stop = e["delta"]["stop_reason"];
  }
  EXPECT_EQ(json::parse(args), json::parse(R"({"location":"Paris, France"})"));
  EXPECT_EQ(stop, "tool_use");
}

// Bedrock: the model is not in the body; streams are binary both ways.
TEST(ConvertCli, BedrockRequestAndResponseBothWays) {
  CliRun r = convert("--from bedrock --to openai --kind request",
                     fixture("bedrock-converse-tool-result.request.json"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json o = json::parse(r.out);
  EXPECT_EQ(o["messages"][1]["tool_calls"][0]["id"], "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q");
  EXPECT_EQ(o["messages"][2]["role"], "tool");
  CliRun back = convert("--from openai --to bedrock --kind request", r.out);
  ASSERT_EQ(back.exit_code, 0) << back.err;
  json b = json::parse(back.out);
  EXPECT_EQ(b.count("model"), 0u);
  EXPECT_EQ(b["toolConfig"]["tools"][0]["toolSpec"]["name"], "top_song");
  CliRun resp = convert("--from bedrock --to anthropic --kind response",
                        fixture("bedrock-converse-tool-use.response.json"));
  ASSERT_EQ(resp.exit_code, 0) << resp.err;
  EXPECT_EQ(json::parse(resp.out)["stop_reason"], "tool_use");
}

TEST(ConvertCli, StreamBedrockBinaryInAndOut) {
  const std::string bytes = fixture("bedrock-converse-stream-tool-use.eventstream");
  CliRun r = convert("--from bedrock --to anthropic --kind stream", bytes);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string args;
  for (const json& e : sse_data(r.out))
    if (e["type"] == "content_block_delta" && e["delta"]["type"] == "input_json_delta")
      args += e["delta"]["partial_json"].get<std::string>();
  EXPECT_EQ(json::parse(args), json::parse(R"({"sign":"WZPZ"})"));
  // And back into the binary framing: the same events as the source.
  CliRun back = convert("--from anthropic --to bedrock --kind stream", r.out);
  ASSERT_EQ(back.exit_code, 0) << back.err;
  CliRun again = convert("--from bedrock --to anthropic --kind stream", back.out);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(sse_data(again.out).size(), sse_data(r.out).size());
  // A corrupted frame fails with the CRC named.
  std::string bad = bytes;
  bad[bad.size() / 2] ^= 1;
  CliRun broken = convert("--from bedrock --to openai --kind stream", bad);
  EXPECT_NE(broken.exit_code, 0);
  EXPECT_NE(broken.err.find("CRC"), std::string::npos) << broken.err;
}

TEST(ConvertCli, SameDialectPassthrough) {
  CliRun r = convert("--from anthropic --to anthropic --kind request",
                     fixture("anthropic-messages-tool-use.request.json"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["tools"],
            json::parse(fixture("anthropic-messages-tool-use.request.json"))["tools"]);
}

TEST(ConvertCli, BadInputFailsWithThePathOnStderr) {
  struct Case {
    const char* args;
    std::string input;
    const char* must_name;  // a JSON path, or a phrase for non-JSON errors
  };
  const Case cases[] = {
      {"--from openai --to anthropic --kind request",
       R"({"model":"m","messages":[{"role":"user","content":"hi"},{"role":"bot","content":"x"}]})",
       "$.messages[1].role"},
      {"--from openai --to anthropic --kind request", R"({"model":"m","messages":5})",
       "$.messages"},
      {"--from openai --to anthropic --kind request",
       R"({"model":"m","messages":[{"role":"user","content":"hi"},{"role":"tool","tool_call_id":"nope","content":"x"}]})",
       "$.messages[1].tool_call_id"},
      {"--from anthropic --to openai --kind request",
       R"({"model":"m","max_tokens":5,"messages":[{"role":"user","content":[{"type":"text","text":7}]}]})",
       "$.messages[0].content[0].text"},
      {"--from anthropic --to openai --kind response",
       R"({"id":"msg","content":[{"type":"tool_use","id":"t","name":"f","input":{}}],"stop_reason":1})",
       "$.stop_reason"},
      {"--from openai --to anthropic --kind request", R"({"model":"m","messages":[)", "$"},
  };
  for (const Case& c : cases) {
    CliRun r = convert(c.args, c.input);
    EXPECT_NE(r.exit_code, 0) << c.input;
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_NE(r.err.find(c.must_name), std::string::npos)
        << "stderr does not name " << c.must_name << ": " << r.err;
  }
}

TEST(ConvertCli, TruncatedOrBrokenStreamsFail) {
  std::string sse = fixture("anthropic-messages-stream-tool-use.sse");
  CliRun r = convert("--from anthropic --to openai --kind stream",
                     sse.substr(0, sse.find("event: message_delta")));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("message_stop"), std::string::npos) << r.err;

  r = convert("--from openai --to anthropic --kind stream",
              "data: "
              "{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\","
              "\"choices\":[{\"index\":0,\"delta\":{\"content\":5}}]}\n\n");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("content"), std::string::npos) << r.err;
}

// A stream is translated while it flows: each event's translation is on
// stdout while stdin is still open (fread would wait for 16 KB or the end).
TEST(ConvertCli, StreamForwardsEachEventBeforeTheInputEnds) {
  std::string sse = fixture("anthropic-messages-stream-tool-use.sse");
  std::vector<std::string> events;
  for (size_t pos = 0; pos < sse.size();) {
    size_t end = sse.find("\n\n", pos);
    end = end == std::string::npos ? sse.size() : end + 2;
    events.push_back(sse.substr(pos, end - pos));
    pos = end;
  }
  ASSERT_GT(events.size(), 5u);
  ASSERT_NE(events[0].find("message_start"), std::string::npos);
  ASSERT_NE(events[3].find("\"Okay\""), std::string::npos);

  Subprocess p(
      {TOOLWIRE_BINARY, "convert", "--from", "anthropic", "--to", "openai", "--kind", "stream"});
  ASSERT_TRUE(p.started());
  auto complete_chunk_with = [](std::string needle) {
    return [needle](const std::string& out) {
      size_t at = out.find(needle);
      return at != std::string::npos && out.find("\n\n", at) != std::string::npos;
    };
  };
  constexpr std::chrono::seconds kWait{20};
  // The role chunk waits for the first content event (it says `content: ""`
  // before text, `null` before a call), so the first delta brings both.
  ASSERT_TRUE(p.write_stdin(events[0]));
  ASSERT_TRUE(p.write_stdin(events[1] + events[2] + events[3]));
  ASSERT_TRUE(p.read_until(complete_chunk_with("\"content\":\"Okay\""), kWait))
      << "the first text delta was not forwarded while stdin is open; stdout: " << p.out()
      << " stderr: " << p.err();
  EXPECT_NE(p.out().find("\"role\":\"assistant\""), std::string::npos) << p.out();
  EXPECT_EQ(p.out().find("[DONE]"), std::string::npos) << p.out();

  for (size_t i = 4; i < events.size(); ++i) ASSERT_TRUE(p.write_stdin(events[i]));
  ASSERT_EQ(p.wait(kWait), 0) << p.err();
  EXPECT_TRUE(p.out().ends_with("data: [DONE]\n\n")) << p.out();
  // The same bytes as the whole stream converted at once.
  EXPECT_EQ(p.out(), convert("--from anthropic --to openai --kind stream", sse).out);
}

TEST(ConvertCli, UnknownDialectIsAUsageError) {
  CliRun r = convert("--from cohere --to openai --kind request", "{}");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("cohere"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("gemini"), std::string::npos) << r.err;  // the known ones are listed
}

TEST(ConvertCli, GeminiBothWays) {
  CliRun to_openai = convert("--from gemini --to openai --kind request",
                             fixture("gemini-generatecontent-function-response.request.json"));
  ASSERT_EQ(to_openai.exit_code, 0) << to_openai.err;
  nlohmann::json req = nlohmann::json::parse(to_openai.out);
  EXPECT_EQ(req["messages"][1]["tool_calls"][0]["function"]["name"], "find_theaters");
  EXPECT_EQ(req["messages"][2]["role"], "tool");
  CliRun back = convert("--from openai --to gemini --kind request", to_openai.out);
  ASSERT_EQ(back.exit_code, 0) << back.err;
  nlohmann::json g = nlohmann::json::parse(back.out);
  EXPECT_EQ(g["contents"][2]["parts"][0]["functionResponse"]["name"], "find_theaters");
  CliRun resp = convert("--from gemini --to anthropic --kind response",
                        fixture("gemini-generatecontent-function-call.response.json"));
  ASSERT_EQ(resp.exit_code, 0) << resp.err;
  EXPECT_EQ(nlohmann::json::parse(resp.out)["stop_reason"], "tool_use");
  CliRun stream = convert("--from anthropic --to gemini --kind stream",
                          fixture("anthropic-messages-stream-tool-use.sse"));
  ASSERT_EQ(stream.exit_code, 0) << stream.err;
  EXPECT_NE(stream.out.find("\"functionCall\""), std::string::npos) << stream.out;
  EXPECT_NE(stream.out.find("\"finishReason\":\"STOP\""), std::string::npos) << stream.out;
}

}  // namespace
