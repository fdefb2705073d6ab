// Agent events as JSON lines (toolwire chat --json, gateway event streams).
#include <variant>

#include "toolwire/agent/events.h"
#include "toolwire/core/enum_names.h"
#include "toolwire/core/json_writer.h"

namespace toolwire::agent {

namespace {
constexpr EnumName<StopReason> kStopReasons[] = {
    {StopReason::final_text, "final_text"},     {StopReason::end_turn_tool, "end_turn_tool"},
    {StopReason::round_limit, "round_limit"},   {StopReason::cancelled, "cancelled"},
    {StopReason::client_calls, "client_calls"}, {StopReason::error, "error"}};
}  // namespace

std::string_view to_string(StopReason reason) { return name_of(kStopReasons, reason, "error"); }

std::string result_text(const ir::ToolResultPart& result) {
  std::string out;
  for (const auto& c : result.content) {
    if (auto* t = std::get_if<ir::TextPart>(&c)) {
      if (!out.empty()) out += "\n";
      out += t->text;
    } else if (std::holds_alternative<ir::ImagePart>(c)) {
      if (!out.empty()) out += "\n";
      out += "[image]";
    }
  }
  return out;
}

namespace {

void usage_json(JsonWriter& w, const ir::Usage& u) {
  w.key("usage");
  w.begin_object();
  if (u.input_tokens) w.field("input_tokens", *u.input_tokens);
  if (u.output_tokens) w.field("output_tokens", *u.output_tokens);
  if (u.cache_read_tokens) w.field("cache_read_tokens", *u.cache_read_tokens);
  if (u.cache_write_tokens) w.field("cache_write_tokens", *u.cache_write_tokens);
  if (u.estimated) w.field("estimated", true);
  w.end_object();
}

void fnum(JsonWriter& w, std::string_view k, double v) {
  w.key(k);
  w.number(v);
}

struct Writer {
  JsonWriter& w;
  // What every event of a round starts with.
  void head(std::string_view type, int round) {
    w.field("type", type);
    w.field("round", round);
  }
  void operator()(const TextDeltaEvent& e) {
    head("text_delta", e.round);
    w.field("text", e.text);
  }
  void operator()(const ThinkingDeltaEvent& e) {
    head("thinking_delta", e.round);
    w.field("text", e.text);
  }
  void operator()(const ToolCallEvent& e) {
    head("tool_call", e.round);
    w.field("id", e.call.id);
    w.field("name", e.call.name);
    // Valid arguments are spliced as JSON; broken ones stay a string.
    if (e.call.arguments_valid && !e.call.arguments.empty())
      w.field_raw("arguments", e.call.arguments);
    else
      w.field("arguments", e.call.arguments);
    w.field("remote", e.remote);
  }
  void operator()(const ToolResultEvent& e) {
    head("tool_result", e.round);
    w.field("id", e.result.call_id);
    w.field("name", e.tool_name);
    w.field("is_error", e.result.is_error);
    w.field("content", result_text(e.result));
    fnum(w, "duration_ms", static_cast<double>(e.duration.count()) / 1000.0);
  }
  void operator()(const RoundFinishedEvent& e) {
    head("round_finished", e.round);
    w.field("finish", to_string(e.finish.kind));
    if (!e.finish.raw.empty()) w.field("finish_raw", e.finish.raw);
    w.field("tool_calls", e.tool_calls);
    usage_json(w, e.usage);
    w.key("timing");
    w.begin_object();
    fnum(w, "ttft_ms", static_cast<double>(e.timing.time_to_first_token.count()) / 1000.0);
    fnum(w, "total_ms", static_cast<double>(e.timing.total.count()) / 1000.0);
    fnum(w, "output_tokens_per_second", e.timing.output_tokens_per_second);
    w.field("attempts", e.timing.attempts);
    w.end_object();
    if (!e.limits.empty()) {
      w.key("ratelimit");
      w.begin_object();
      for (const auto& [k, v] : e.limits.headers) w.field(k, v);
      w.end_object();
    }
  }
  void operator()(const FinalAnswerEvent& e) {
    w.field("type", "final_answer");
    w.field("stop", to_string(e.reason));
    w.field("rounds", e.rounds);
    w.field("text", e.text);
  }
  void operator()(const SpeechEvent& e) {
    head("speech", e.round);
    w.field("text", e.text);
    if (!e.call_id.empty()) w.field("id", e.call_id);
  }
  void operator()(const ErrorEvent& e) {
    head("error", e.round);
    w.field("code", to_string(e.error.code));
    w.field("message", e.error.to_string());
  }
};

}  // namespace

std::string to_json(const Event& event) {
  std::string out;
  JsonWriter w(out);
  w.begin_object();
  std::visit(Writer{w}, event);
  w.end_object();
  return out;
}

}  // namespace toolwire::agent
