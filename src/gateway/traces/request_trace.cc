#include "gateway/traces/request_trace.h"

namespace toolwire::gateway::traces {
namespace {

using Clock = std::chrono::steady_clock;

double ms(std::chrono::microseconds us) { return static_cast<double>(us.count()) / 1000.0; }

std::string text_of(const ir::Response& r) {
  std::string out;
  for (const auto& p : r.parts)
    if (const auto* t = std::get_if<ir::TextPart>(&p)) out += t->text;
  return out;
}

// What an error's kind is called in a span (the metrics' names).
std::string_view outcome_of(const Error& e) {
  if (e.code == ErrorCode::cancelled) return "cancelled";
  if (e.code == ErrorCode::deadline_exceeded) return "timeout";
  if (e.http_status >= 500) return "http_5xx";
  if (e.http_status == 429) return "rate_limited";
  if (e.http_status >= 400) return "http_4xx";
  return "error";
}

}  // namespace

RequestTrace::RequestTrace(std::shared_ptr<telemetry::TraceStore> store,
                           std::shared_ptr<telemetry::OtlpExporter> otlp, std::string kind,
                           std::string name, std::string key_name, bool capture)
    : store_(std::move(store)),
      otlp_(std::move(otlp)),
      trace_(telemetry::Trace::begin(std::move(kind), std::move(name))),
      capture_(capture) {
  trace_.key_name = std::move(key_name);
}

size_t RequestTrace::model_begin(std::string_view model, std::string_view upstream,
                                 std::string_view provider, std::string_view caller_dialect,
                                 bool stream) {
  size_t i = trace_.spans.size();
  telemetry::Span& s = trace_.add_span("chat " + std::string(model), "model_call");
  s.set("gen_ai.operation.name", std::string("chat"));
  s.set("gen_ai.request.model", std::string(model));
  s.set("gen_ai.provider.name", std::string(provider));
  s.set("toolwire.route", trace_.name);
  s.set("toolwire.upstream", std::string(upstream));
  if (!caller_dialect.empty()) s.set("toolwire.dialect.caller", std::string(caller_dialect));
  s.set("toolwire.stream", stream);
  model_started_[i] = Clock::now();
  return i;
}

void RequestTrace::model_first_byte(size_t span) {
  if (span >= trace_.spans.size()) return;
  telemetry::Span& s = trace_.spans[span];
  if (s.get("toolwire.time_to_first_byte_ms")) return;
  auto it = model_started_.find(span);
  if (it == model_started_.end()) return;
  s.set("toolwire.time_to_first_byte_ms",
        std::chrono::duration<double, std::milli>(Clock::now() - it->second).count());
}

void RequestTrace::model_end(size_t span, std::string_view upstream, std::string_view provider,
                             int targets, const Result<provider::Generation>& result,
                             const Warnings& warnings) {
  if (span >= trace_.spans.size()) return;
  telemetry::Span& s = trace_.spans[span];
  if (s.duration_us > 0 || s.get("toolwire.outcome")) return;  // ended already
  s.set("toolwire.upstream", std::string(upstream));
  s.set("gen_ai.provider.name", std::string(provider));
  s.set("toolwire.attempts", int64_t{targets});
  std::string warned;
  for (const auto& w : warnings) warned += (warned.empty() ? "" : "; ") + w.code;
  if (result) {
    const provider::Generation& g = *result;
    for (const auto& w : g.warnings)
      if (warned.find(w.code) == std::string::npos) warned += (warned.empty() ? "" : "; ") + w.code;
    if (!g.response.model.empty()) s.set("gen_ai.response.model", g.response.model);
    if (!g.response.id.empty()) s.set("gen_ai.response.id", g.response.id);
    if (g.response.usage.input_tokens)
      s.set("gen_ai.usage.input_tokens", *g.response.usage.input_tokens);
    if (g.response.usage.output_tokens)
      s.set("gen_ai.usage.output_tokens", *g.response.usage.output_tokens);
    if (!g.response.finish.raw.empty())
      s.set("gen_ai.response.finish_reasons", g.response.finish.raw);
    if (g.timing.attempts > 0) s.set("toolwire.http_attempts", int64_t{g.timing.attempts});
    if (!s.get("toolwire.time_to_first_byte_ms") && g.timing.time_to_first_token.count() > 0)
      s.set("toolwire.time_to_first_byte_ms", ms(g.timing.time_to_first_token));
    s.set("toolwire.outcome", std::string("ok"));
    if (capture_) s.set("toolwire.output.text", telemetry::redact(text_of(g.response)));
    if (!warned.empty()) s.set("toolwire.warnings", warned);
    s.end();
  } else {
    const Error& e = result.error();
    s.set("toolwire.outcome", std::string(outcome_of(e)));
    if (e.http_status > 0) s.set("http.response.status_code", int64_t{e.http_status});
    s.set("error.type", std::string(to_string(e.code)));
    if (!warned.empty()) s.set("toolwire.warnings", warned);
    s.end(true, e.message);
  }
  auto it = model_started_.find(span);
  if (it != model_started_.end()) {
    s.set("toolwire.latency_ms",
          std::chrono::duration<double, std::milli>(Clock::now() - it->second).count());
    model_started_.erase(it);
  }
}

void RequestTrace::tool_call(const agent::ToolCallEvent& e, std::string_view runner) {
  size_t i = trace_.spans.size();
  telemetry::Span& s = trace_.add_span("execute_tool " + e.call.name, "tool_call");
  s.set("gen_ai.operation.name", std::string("execute_tool"));
  s.set("gen_ai.tool.name", e.call.name);
  s.set("gen_ai.tool.call.id", e.call.id);
  s.set("toolwire.tool.runner", std::string(runner));
  s.set("toolwire.round", int64_t{e.round});
  if (capture_) s.set("gen_ai.tool.call.arguments", telemetry::redact(e.call.arguments));
  open_tools_[e.call.id] = i;
}

void RequestTrace::tool_result(const agent::ToolResultEvent& e, bool timed_out) {
  auto it = open_tools_.find(e.result.call_id);
  if (it == open_tools_.end()) return;
  telemetry::Span& s = trace_.spans[it->second];
  open_tools_.erase(it);
  const std::string outcome = timed_out ? "timeout" : e.result.is_error ? "error" : "ok";
  s.set("toolwire.tool.outcome", outcome);
  if (capture_) s.set("gen_ai.tool.call.result", telemetry::redact(agent::result_text(e.result)));
  s.end(outcome != "ok", outcome != "ok" ? "the tool " + outcome + (timed_out ? "d out" : "") : "");
  s.duration_us = e.duration.count();
  s.set("toolwire.duration_ms", ms(e.duration));
}

void RequestTrace::tool_returned(std::string_view name, std::string_view call_id,
                                 std::string_view arguments, int index) {
  if (capture_ && index >= 0) returned_args_[index] = {trace_.spans.size(), std::string()};
  telemetry::Span& s = trace_.add_span("execute_tool " + std::string(name), "tool_call");
  if (capture_ && !arguments.empty())
    s.set("gen_ai.tool.call.arguments", telemetry::redact(arguments));
  s.set("gen_ai.operation.name", std::string("execute_tool"));
  s.set("gen_ai.tool.name", std::string(name));
  s.set("gen_ai.tool.call.id", std::string(call_id));
  s.set("toolwire.tool.runner", std::string("client"));
  s.set("toolwire.tool.outcome", std::string("returned"));
  s.end();
}

void RequestTrace::tool_returned_arguments(int index, std::string_view fragment) {
  if (auto it = returned_args_.find(index); it != returned_args_.end())
    it->second.second += fragment;
}

void RequestTrace::stream_warnings(std::string_view items) {
  if (items.empty()) return;
  for (size_t i = trace_.spans.size(); i-- > 0;)
    if (trace_.spans[i].kind == "model_call") {
      trace_.spans[i].set("toolwire.stream_warnings", std::string(items));
      return;
    }
}

void RequestTrace::finish(int status) {
  if (finished_) return;
  finished_ = true;
  for (auto& [index, span_args] : returned_args_)
    if (!span_args.second.empty())
      trace_.spans[span_args.first].set("gen_ai.tool.call.arguments",
                                        telemetry::redact(span_args.second));
  returned_args_.clear();
  // What was still open when the answer ended (a client that left, a
  // device that never answered) ends here.
  for (auto& [id, i] : open_tools_) {
    telemetry::Span& s = trace_.spans[i];
    const telemetry::Value* runner = s.get("toolwire.tool.runner");
    const auto* name = runner ? std::get_if<std::string>(runner) : nullptr;
    const bool client = name && *name == "client";
    s.set("toolwire.tool.outcome", std::string(client ? "returned" : "cancelled"));
    s.end(!client, client ? "" : "no result before the answer ended");
  }
  open_tools_.clear();
  for (auto& [i, started] : model_started_) {
    telemetry::Span& s = trace_.spans[i];
    s.set("toolwire.outcome", std::string("cancelled"));
    s.end(true, "cancelled");
  }
  model_started_.clear();
  trace_.end(status);
  // Both queue and return at once; the exporter gets a copy only when the
  // store takes the trace too.
  if (otlp_) otlp_->submit(store_ ? trace_ : std::move(trace_));
  if (store_) store_->submit(std::move(trace_));
}

}  // namespace toolwire::gateway::traces
