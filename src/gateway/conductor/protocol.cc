// Envelope parsing and per-type validation of incoming frames; envelopes
// for outgoing events.
#include "gateway/conductor/protocol.h"

#include <chrono>
#include <ctime>
#include <map>

#include "toolwire/core/json_depth.h"
#include "toolwire/tools/schema.h"

namespace toolwire::gateway::conductor {
namespace {

using json = nlohmann::json;

struct Compiled {
  tools::CompiledSchema envelope;
  std::map<std::string, tools::CompiledSchema, std::less<>> client;
  std::map<std::string, tools::CompiledSchema, std::less<>> server;
};

tools::CompiledSchema must_compile(std::string_view text) {
  auto s = tools::CompiledSchema::compile(text);
  if (!s) std::abort();  // a broken built-in schema is a bug caught by every test
  return std::move(*s);
}

const Compiled& compiled() {
  static const Compiled c = [] {
    Compiled out{must_compile(envelope_schema()), {}, {}};
    for (const auto& [type, schema] : client_schemas())
      out.client.emplace(type, must_compile(schema));
    for (const auto& [type, schema] : server_schemas())
      out.server.emplace(type, must_compile(schema));
    return out;
  }();
  return c;
}

std::string violations_text(const tools::CompiledSchema& s, const json& v, std::string_view at) {
  std::string out;
  for (const auto& x : s.violations(v, 4)) {
    if (!out.empty()) out += "; ";
    out += std::string(at) + (x.pointer.empty() ? "" : x.pointer) + ": " + x.message;
  }
  return out;
}

std::optional<ClientType> type_of(std::string_view t) {
  if (t == "session.start") return ClientType::session_start;
  if (t == "transcript.final" || t == "user.message") return ClientType::transcript_final;
  if (t == "tool.result") return ClientType::tool_result;
  if (t == "session.cancel") return ClientType::session_cancel;
  if (t == "ping") return ClientType::ping;
  return std::nullopt;
}

}  // namespace

ParsedFrame parse_frame(std::string_view text) {
  ParsedFrame out;
  // Checked before parsing: a frame nested 100,000 deep (under the frame size
  // limit) would overflow the stack of the schema check or of a later walk.
  if (json_deeper_than(text)) {
    out.error = FrameError{"invalid_json", "the frame is " + json_too_deep_message(), ""};
    return out;
  }
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded()) {
    out.error = FrameError{"invalid_json", "the frame is not valid JSON", ""};
    return out;
  }
  std::string id;
  if (j.is_object()) {
    if (auto it = j.find("id"); it != j.end()) {
      if (it->is_string())
        id = it->get<std::string>();
      else if (it->is_number_integer())
        id = it->dump();
    }
  }
  const Compiled& c = compiled();
  if (!c.envelope.accepts(j)) {
    out.error = FrameError{"invalid_envelope",
                           "not an event envelope {id, type, sessionId, timestamp, payload}: " +
                               violations_text(c.envelope, j, "$"),
                           id};
    return out;
  }
  std::string type = j["type"].get<std::string>();
  auto kind = type_of(type);
  if (!kind) {
    std::string known;
    for (const auto& [t, s] : client_schemas()) known += (known.empty() ? "" : ", ") + t;
    out.error = FrameError{"unknown_type",
                           "unknown event type '" + type + "' (expected " + known + ")", id};
    return out;
  }
  Frame f;
  f.id = std::move(id);
  f.type = *kind;
  f.type_name = type;
  if (auto it = j.find("sessionId"); it != j.end()) f.session_id = it->get<std::string>();
  if (auto it = j.find("payload"); it != j.end()) f.payload = std::move(*it);
  const auto& schema = c.client.find(type)->second;
  if (!schema.accepts(f.payload)) {
    out.error = FrameError{"schema_violation",
                           type + ": " + violations_text(schema, f.payload, "payload"), f.id};
    return out;
  }
  out.frame = std::move(f);
  return out;
}

std::string iso8601_now() {
  auto now = std::chrono::system_clock::now();
  std::time_t t = std::chrono::system_clock::to_time_t(now);
  auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[96];  // sized for any int fields, so -Wformat-truncation has nothing to say
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms));
  return buf;
}

std::string make_event(std::string_view id, std::string_view type, std::string_view session_id,
                       const nlohmann::json& payload) {
  json e = json::object();
  e["id"] = id;
  e["type"] = type;
  if (!session_id.empty()) e["sessionId"] = session_id;
  e["timestamp"] = iso8601_now();
  e["payload"] = payload;
  return e.dump();
}

std::string check_server_event(const nlohmann::json& envelope) {
  const Compiled& c = compiled();
  if (!c.envelope.accepts(envelope)) return violations_text(c.envelope, envelope, "$");
  auto it = c.server.find(envelope["type"].get<std::string>());
  if (it == c.server.end()) return "unknown server event type";
  json payload = envelope.value("payload", json::object());
  return it->second.accepts(payload) ? "" : violations_text(it->second, payload, "payload");
}

}  // namespace toolwire::gateway::conductor
