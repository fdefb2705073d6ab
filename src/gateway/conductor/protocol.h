// The conductor's wire protocol: JSON text frames, each an envelope
//   {"id", "type", "sessionId", "timestamp", "payload"}
// checked against the JSON Schema of its type (schemas.cc, docs/conductor.md)
// before anything acts on it.
//
//   auto f = conductor::parse_frame(R"({"type":"ping"})");
//   if (!f) send_error(f.error().code_name, f.error().message);
//   std::string out = conductor::make_event("s1:4", "pong", "s1", {});
#pragma once

#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace toolwire::gateway::conductor {

enum class ClientType { session_start, transcript_final, tool_result, session_cancel, ping };

struct Frame {
  std::string id;  // the sender's id ("" when it gave none)
  ClientType type = ClientType::ping;
  std::string type_name;  // as sent ("user.message" is transcript.final)
  std::string session_id;
  nlohmann::json payload = nlohmann::json::object();
  std::chrono::steady_clock::time_point received{};  // set by the connection
};

// Why a frame was refused: `code` goes into the error event as is.
struct FrameError {
  std::string code;     // invalid_json | invalid_envelope | unknown_type | schema_violation
  std::string message;  // names the problem (and the JSON pointer of a violation)
  std::string id;       // the frame's id when it could be read
};

// One frame as received. Not JSON, no envelope, an unknown type or a payload
// that breaks its type's schema are errors that name the problem.
struct ParsedFrame {
  std::optional<Frame> frame;
  std::optional<FrameError> error;
};
ParsedFrame parse_frame(std::string_view text);

// An outgoing event as one text frame; timestamp is now (ISO-8601 UTC, ms).
std::string make_event(std::string_view id, std::string_view type, std::string_view session_id,
                       const nlohmann::json& payload);
std::string iso8601_now();

// The JSON Schemas, by event type (client → server and server → client), and
// the envelope's. Used to validate incoming frames, documented in
// docs/conductor.md, and checked against outgoing events by the tests.
const std::vector<std::pair<std::string, std::string>>& client_schemas();
const std::vector<std::pair<std::string, std::string>>& server_schemas();
std::string_view envelope_schema();
// Violations of `type`'s server-event schema ("" when it conforms).
std::string check_server_event(const nlohmann::json& envelope);

}  // namespace toolwire::gateway::conductor
