#include "gen.h"

#include <algorithm>
#include <cstdlib>
#include <nlohmann/json.hpp>

namespace toolwire::testing {
namespace {

using nlohmann::json;

// Words with what tends to break codecs: quotes, backslashes, control
// characters, multi-byte UTF-8, emoji, HTML, a lone "Error: " lookalike.
const char* const kWords[] = {
    "the",         "weather",     "in",       "Paris",     "is",           "sunny",
    "température", "naïve",       "漢字",     "🙂",      "\"quoted\"",   "back\\slash",
    "tab\there",   "line\nbreak", "ctl\x01x", "</script>", "{\"json\":1}", "Error:",
    "50%",         "a&b",         "null",     "ünïcödé",   "\xe2\x80\xa8", "ok",
    "tools",       "call",
};

const char* const kMediaTypes[] = {"image/png", "image/jpeg", "image/gif", "image/webp"};

const char kAlnum[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

std::string base64(std::mt19937_64& rng, size_t bytes) {
  static const char kB64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (size_t i = 0; i < (bytes + 2) / 3 * 4; ++i) out += kB64[rng() % 64];
  return out;
}

// Realistic tool definitions: nested objects, arrays, enums, descriptions.
const char* const kTools[][3] = {
    {"get_weather", "Get the current weather in a given location",
     R"({"type":"object","properties":{"location":{"type":"string","description":"City and state, e.g. San Francisco, CA"},"unit":{"type":"string","enum":["celsius","fahrenheit"]}},"required":["location"]})"},
    {"search_docs", "Full-text search over the product documentation",
     R"({"type":"object","properties":{"query":{"type":"string"},"limit":{"type":"integer","minimum":1,"maximum":50},"filters":{"type":"object","properties":{"section":{"type":"string"},"updated_after":{"type":"string","format":"date"}}}},"required":["query"]})"},
    {"run_sql", "Run a read-only SQL query against the analytics warehouse",
     R"({"type":"object","properties":{"sql":{"type":"string"},"params":{"type":"array","items":{"type":["string","number","null"]}},"timeout_ms":{"type":"integer"}},"required":["sql"],"additionalProperties":false})"},
    {"send_email", "Send an e-mail on behalf of the user",
     R"({"type":"object","properties":{"to":{"type":"array","items":{"type":"string","format":"email"}},"subject":{"type":"string"},"body":{"type":"string"},"cc":{"type":"array","items":{"type":"string"}}},"required":["to","subject","body"]})"},
    {"read_file", "Read a text file from the workspace",
     R"({"type":"object","properties":{"path":{"type":"string"},"offset":{"type":"integer"},"length":{"type":"integer"}},"required":["path"]})"},
    {"create_event", "Create a calendar event",
     R"({"type":"object","properties":{"title":{"type":"string"},"start":{"type":"string","format":"date-time"},"duration_minutes":{"type":"number"},"attendees":{"type":"array","items":{"type":"object","properties":{"email":{"type":"string"},"optional":{"type":"boolean"}},"required":["email"]}}},"required":["title","start"]})"},
    {"no_args", "A tool without parameters", R"({"type":"object","properties":{}})"},
};
constexpr int kToolCount = sizeof(kTools) / sizeof(kTools[0]);

}  // namespace

uint64_t generated_seeds(uint64_t fallback) {
  const char* env = std::getenv("TOOLWIRE_GEN_SEEDS");
  return env && *env ? std::strtoull(env, nullptr, 10) : fallback;
}

std::string ConversationGen::text(int min_words, int max_words) {
  int n = uniform(min_words, max_words);
  std::string out;
  for (int i = 0; i < n; ++i) {
    if (i) out += ' ';
    out += kWords[uniform(0, sizeof(kWords) / sizeof(kWords[0]) - 1)];
  }
  return out;
}

std::string ConversationGen::call_id() {
  int n = ++id_counter_;
  std::string alnum;
  for (int i = 0; i < 22; ++i) alnum += kAlnum[uniform(0, sizeof(kAlnum) - 2)];
  switch (uniform(0, 6)) {
    case 0:
      return "call_" + alnum;
    case 1:
      return "toolu_01" + alnum;
    case 2:
      return "call." + std::to_string(n) + ":x";  // Anthropic rejects '.' and ':'
    case 3:
      return "tw-" + std::to_string(n);  // collides with the mapping's prefix
    case 4:
      return "fc/é" + std::to_string(n) + " -x";  // bytes outside ASCII, space, dash
    case 5:
      return "call-" + std::to_string(n) + "-" + alnum.substr(0, 6);
    default:
      return std::to_string(n) + "_" + alnum.substr(0, 8);
  }
}

std::string ConversationGen::arguments(bool allow_invalid) {
  if (allow_invalid && chance(0.12)) {
    const char* const kInvalid[] = {"{\"city\": \"Par",   "not json at all", "{'a': 1}",
                                    "{\"a\":1}{\"b\":2}", "[1, 2,",          "{\"x\": tru}"};
    return kInvalid[uniform(0, 5)];
  }
  json args = json::object();
  int fields = uniform(0, 5);
  for (int i = 0; i < fields; ++i) {
    std::string key = std::string("k") + std::to_string(i) + (chance(0.2) ? "é\"" : "");
    switch (uniform(0, 6)) {
      case 0:
        args[key] = text(1, 4);
        break;
      case 1:
        args[key] = uniform(-100000, 100000);
        break;
      case 2:
        args[key] = uniform(0, 1000) / 8.0;
        break;
      case 3:
        args[key] = chance(0.5);
        break;
      case 4:
        args[key] = nullptr;
        break;
      case 5:
        args[key] =
            json::array({text(1, 2), uniform(0, 9), json::object({{"nested", text(1, 3)}})});
        break;
      default:
        args[key] = json::object({{"inner", json::object({{"deep", json::array({1, 2, 3})}})}});
        break;
    }
  }
  // Models emit compact and pretty-printed arguments alike.
  return chance(0.3) ? args.dump(2) : args.dump();
}

ir::ImagePart ConversationGen::image(bool allow_detail) {
  ir::ImagePart img;
  if (chance(0.5)) {
    img.url = "https://example.com/images/" + std::to_string(uniform(1, 9999)) + ".png";
  } else {
    img.media_type = kMediaTypes[uniform(0, 3)];
    img.data = base64(rng_, uniform(3, 90));
  }
  if (allow_detail && chance(0.3)) img.detail = chance(0.5) ? "low" : "high";
  return img;
}

ir::ToolDefinition ConversationGen::tool(int which) {
  const auto& t = kTools[which % kToolCount];
  ir::ToolDefinition d;
  d.name = t[0];
  if (which >= kToolCount) d.name += "_" + std::to_string(which / kToolCount);
  d.description = t[1];
  d.input_schema = t[2];
  return d;
}

std::vector<ir::Part> ConversationGen::assistant_parts(const std::vector<ir::ToolDefinition>& tools,
                                                       std::vector<std::string>& call_ids) {
  std::vector<ir::Part> parts;
  if (chance(0.25)) {
    ir::ThinkingPart t;
    if (chance(0.15)) {
      t.redacted = true;
      t.redacted_data = base64(rng_, 48);
    } else {
      t.text = text(3, 12);
      t.signature = base64(rng_, 64);
    }
    parts.push_back(std::move(t));
  }
  int calls = tools.empty() ? 0 : (chance(0.6) ? uniform(1, 4) : 0);
  if (calls == 0 || chance(0.5)) parts.push_back(ir::TextPart{text(1, 20)});
  for (int i = 0; i < calls; ++i) {
    ir::ToolCallPart call;
    call.id = call_id();
    call.name = tools[uniform(0, static_cast<int>(tools.size()) - 1)].name;
    call.arguments = arguments(true);
    call.arguments_valid = nlohmann::json::accept(call.arguments);
    call_ids.push_back(call.id);
    parts.push_back(std::move(call));
  }
  return parts;
}

ir::Request ConversationGen::request(int turns) {
  ir::Request r;
  r.model = chance(0.5) ? "gpt-4o" : "claude-sonnet-4-5";
  int n_system = uniform(0, 2);
  for (int i = 0; i < n_system; ++i) r.system.push_back({text(3, 15), chance(0.3)});
  int n_tools = uniform(0, 6);
  for (int i = 0; i < n_tools; ++i) r.tools.push_back(tool(i));
  if (!r.tools.empty() && chance(0.7)) {
    ir::ToolChoice tc;
    tc.kind = static_cast<ir::ToolChoice::Kind>(uniform(0, 3));
    if (tc.kind == ir::ToolChoice::Kind::tool) tc.name = r.tools[uniform(0, n_tools - 1)].name;
    r.tool_choice = tc;
  }
  bool choice_none = r.tool_choice && r.tool_choice->kind == ir::ToolChoice::Kind::none;
  if (!r.tools.empty() && !choice_none && chance(0.5)) r.parallel_tool_calls = chance(0.5);
  if (chance(0.6)) r.max_tokens = uniform(1, 8192);
  if (chance(0.5)) r.temperature = uniform(0, 8) / 4.0;
  if (chance(0.3)) r.top_p = chance(0.5) ? 0.9 : 0.5;
  if (chance(0.3)) r.stop = {"STOP", text(1, 2)};
  if (chance(0.2)) r.metadata = R"({"user_id":"u-)" + std::to_string(uniform(1, 999)) + R"("})";
  r.stream = chance(0.3);

  // After tool results the text comes first: OpenAI moves a result's images
  // into a user message, and merged with a user message that *starts* with an
  // image the boundary between the two image groups could not be told back.
  auto user_message = [&](bool after_tool) {
    ir::Message m{ir::Role::user, {}, {}};
    if (!after_tool && chance(0.3)) m.parts.push_back(image(true));
    m.parts.push_back(ir::TextPart{text(1, 25)});
    if (chance(0.2)) m.parts.push_back(image(true));
    if (chance(0.15)) m.name = "alice";
    return m;
  };
  r.messages.push_back(user_message(false));
  for (int t = 0; t < turns; ++t) {
    std::vector<std::string> ids;
    r.messages.push_back({ir::Role::assistant, assistant_parts(r.tools, ids), {}});
    if (ids.empty()) {
      r.messages.push_back(user_message(false));
      continue;
    }
    ir::Message results{ir::Role::tool, {}, {}};
    for (const auto& id : ids) {
      ir::ToolResultPart res;
      res.call_id = id;
      res.is_error = chance(0.2);
      int texts = uniform(1, 2);
      for (int i = 0; i < texts; ++i) {
        // A successful result that starts with "Error: " would read back from
        // OpenAI as an error (the documented is_error convention): avoided here.
        std::string t = text(1, 30);
        if (i == 0 && t.starts_with("Error:")) t = "ok " + t;
        res.content.push_back(ir::TextPart{t});
      }
      if (chance(0.15)) res.content.push_back(image(false));
      results.parts.push_back(std::move(res));
    }
    r.messages.push_back(std::move(results));
    if (chance(0.3) || t + 1 == turns) r.messages.push_back(user_message(true));
  }
  return r;
}

ir::Response ConversationGen::response() {
  ir::Response r;
  r.id =
      chance(0.5) ? "chatcmpl-" + std::to_string(uniform(1, 1 << 30)) : "msg_01" + base64(rng_, 12);
  std::replace(r.id.begin(), r.id.end(), '/', 'x');
  std::replace(r.id.begin(), r.id.end(), '+', 'y');
  r.model = chance(0.5) ? "gpt-4o-2024-08-06" : "claude-sonnet-4-5";
  r.created = chance(0.5) ? 1700000000 + uniform(0, 1000000) : 0;
  std::vector<ir::ToolDefinition> tools;
  for (int i = 0; i < kToolCount; ++i) tools.push_back(tool(i));
  std::vector<std::string> ids;
  r.parts = assistant_parts(tools, ids);
  if (!ids.empty()) {
    r.finish = {ir::FinishReason::Kind::tool_calls, ""};
  } else {
    const ir::FinishReason::Kind kinds[] = {ir::FinishReason::Kind::stop,
                                            ir::FinishReason::Kind::length,
                                            ir::FinishReason::Kind::content_filter};
    r.finish = {kinds[uniform(0, 2)], ""};
  }
  r.usage.input_tokens = uniform(10, 100000);
  r.usage.output_tokens = uniform(1, 4000);
  if (chance(0.5)) r.usage.cache_read_tokens = uniform(0, *r.usage.input_tokens / 2);
  if (chance(0.3)) r.usage.cache_write_tokens = uniform(0, *r.usage.input_tokens / 4);
  return r;
}

std::vector<std::string> ConversationGen::split(const std::string& s) {
  std::vector<std::string> pieces;
  size_t i = 0;
  while (i < s.size()) {
    size_t len = std::min(s.size() - i, static_cast<size_t>(uniform(1, 12)));
    // Never cut a UTF-8 sequence: wire fragments are JSON strings.
    while (i + len < s.size() && (static_cast<unsigned char>(s[i + len]) & 0xC0) == 0x80) ++len;
    pieces.push_back(s.substr(i, len));
    i += len;
  }
  return pieces;
}

std::vector<ir::StreamEvent> ConversationGen::stream_events(const ir::Response& r,
                                                            bool interleave) {
  std::vector<ir::StreamEvent> events;
  events.push_back(ir::MessageStart{r.id, r.model, r.created});
  struct Call {
    int index;
    const ir::ToolCallPart* part;
    std::vector<std::string> pieces;
    size_t next = 0;
    bool started = false;
  };
  std::vector<Call> calls;
  for (const auto& part : r.parts) {
    if (auto* t = std::get_if<ir::TextPart>(&part)) {
      for (auto& piece : split(t->text)) events.push_back(ir::TextDelta{piece});
    } else if (auto* th = std::get_if<ir::ThinkingPart>(&part)) {
      if (th->redacted) {
        events.push_back(ir::ThinkingDelta{th->redacted_data, "", true});
      } else {
        for (auto& piece : split(th->text)) events.push_back(ir::ThinkingDelta{piece, "", false});
        if (!th->signature.empty()) events.push_back(ir::ThinkingDelta{"", th->signature, false});
      }
    } else if (auto* call = std::get_if<ir::ToolCallPart>(&part)) {
      calls.push_back({static_cast<int>(calls.size()), call, split(call->arguments)});
    }
  }
  if (interleave && calls.size() > 1) {
    // Starts in index order (as OpenAI sends them), deltas in random order.
    size_t remaining = calls.size();
    size_t started = 0;
    while (remaining > 0) {
      size_t k = static_cast<size_t>(
          uniform(0, static_cast<int>(std::min(calls.size(), started + 1)) - 1));
      Call& c = calls[k];
      if (!c.started) {
        events.push_back(ir::ToolCallStart{c.index, c.part->id, c.part->name});
        c.started = true;
        ++started;
        if (c.pieces.empty()) --remaining;
        continue;
      }
      if (c.next >= c.pieces.size()) continue;
      events.push_back(ir::ToolCallDelta{c.index, c.pieces[c.next++]});
      if (c.next == c.pieces.size()) --remaining;
    }
    for (const auto& c : calls) events.push_back(ir::ToolCallEnd{c.index});
  } else {
    for (const auto& c : calls) {
      events.push_back(ir::ToolCallStart{c.index, c.part->id, c.part->name});
      for (const auto& piece : c.pieces) events.push_back(ir::ToolCallDelta{c.index, piece});
      events.push_back(ir::ToolCallEnd{c.index});
    }
  }
  if (!r.usage.empty()) events.push_back(ir::UsageEvent{r.usage});
  events.push_back(ir::Finish{r.finish});
  return events;
}

}  // namespace toolwire::testing
