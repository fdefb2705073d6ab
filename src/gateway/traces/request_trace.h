// One gateway request's (or one conductor turn's) trace while it is made:
// a span per model call and per tool call, filled on the request's strand
// (so it takes no lock), handed to the TraceStore and the OTLP exporter
// (either may be null) when the answer ends.
// Content (tool arguments and results, the model's text) is kept only when
// the route captures it, and redacted even then.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "toolwire/agent/events.h"
#include "toolwire/core/result.h"
#include "toolwire/core/warnings.h"
#include "toolwire/provider/provider.h"
#include "toolwire/telemetry/otlp_exporter.h"
#include "toolwire/telemetry/trace.h"
#include "toolwire/telemetry/trace_store.h"

namespace toolwire::gateway::traces {

class RequestTrace {
 public:
  RequestTrace(std::shared_ptr<telemetry::TraceStore> store,
               std::shared_ptr<telemetry::OtlpExporter> otlp, std::string kind, std::string name,
               std::string key_name, bool capture);

  telemetry::Trace& trace() { return trace_; }
  bool capture() const { return capture_; }
  void set_capture(bool on) { capture_ = on; }

  // A model call to `upstream` (its name, its provider's profile), asking
  // for `model`; returns the span's index.
  size_t model_begin(std::string_view model, std::string_view upstream, std::string_view provider,
                     std::string_view caller_dialect, bool stream);
  void model_first_byte(size_t span);
  // Its end: `targets` tried, the answer or the error, what translation dropped.
  void model_end(size_t span, std::string_view upstream, std::string_view provider, int targets,
                 const Result<provider::Generation>& result, const Warnings& warnings);

  // What a stream lost after its headers went out (`code (path)` items, the
  // header's form): attribute `toolwire.stream_warnings` of the last model
  // call's span.
  void stream_warnings(std::string_view items);

  // Tool calls of an agent run (server, MCP, device) as its events report them.
  void tool_call(const agent::ToolCallEvent& e, std::string_view runner);
  void tool_result(const agent::ToolResultEvent& e, bool timed_out);
  // A call the model made that the client runs (passthrough, mixed): the
  // answer hands it back, its `arguments` whole; or, in a stream, as call
  // `index` whose arguments come in tool_returned_arguments() fragments.
  // The arguments are kept with content capture only (the console shows them).
  void tool_returned(std::string_view name, std::string_view call_id,
                     std::string_view arguments = {}, int index = -1);
  void tool_returned_arguments(int index, std::string_view fragment);

  // The answer's end: open spans are closed and the trace goes to the store
  // and the exporter.
  void finish(int status);

 private:
  std::shared_ptr<telemetry::TraceStore> store_;
  std::shared_ptr<telemetry::OtlpExporter> otlp_;
  telemetry::Trace trace_;
  bool capture_;
  bool finished_ = false;
  std::map<size_t, std::chrono::steady_clock::time_point> model_started_;
  std::map<std::string, size_t> open_tools_;  // call id → span
  // A stream's client calls: index → span and its arguments so far.
  std::map<int, std::pair<size_t, std::string>> returned_args_;
};

}  // namespace toolwire::gateway::traces
