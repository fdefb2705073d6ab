// A conductor session as it is kept in Redis for another replica to take
// over (docs/deploy.md#conductor-sessions): what session.start asked, the
// conversation before the running turn, the running turn's durable steps
// and the replay buffer. Encoded as the fields of one Redis hash; decoded
// as untrusted input (a corrupt or foreign value gives nullopt, never a
// crash: tests/fuzz/fuzz_shared_state.cc).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "toolwire/ir/message.h"

namespace toolwire::gateway {
class GatewayKey;
}

namespace toolwire::gateway::conductor {

struct SessionRecord {
  nlohmann::json start = nlohmann::json::object();  // session.start's payload, no apiKey
  std::string key;         // key_id() of the session's gateway key: only it may resume
  std::string token_hash;  // sha256 hex of the resume token (the token itself is never stored)
  uint64_t seq = 0;        // the last event number given
  std::vector<std::pair<uint64_t, std::string>> replay;  // kept events, oldest first
  std::vector<ir::Message> history;                      // before the running turn

  // The running turn (in_turn); its state is the last durable step:
  //  calls empty: a model call was in flight (a takeover makes it again);
  //  calls set: the model asked for them; `results` holds those recorded.
  bool in_turn = false;
  std::vector<ir::Message> turn;  // the turn's user message, then its finished rounds
  int rounds = 0;                 // model calls the turn has finished
  // false: a turn whose rounds are not tracked (turn_protocol: envelope):
  // a takeover ends it (turn_interrupted) instead of going on.
  bool resumable = true;
  std::string text;  // the model's text before `calls` (their assistant message)
  std::vector<ir::ToolCallPart> calls;
  std::vector<bool> remote;                 // per call: a device call
  std::vector<int64_t> deadlines;           // per call: when a device call times out (Unix ms)
  std::vector<ir::ToolResultPart> results;  // in the order they came
};

// The hash's fields, as name/value pairs (HSET's arguments).
std::vector<std::string> encode_record(const SessionRecord& r);
// From the hash's fields; nullopt for anything missing or malformed.
std::optional<SessionRecord> decode_record(const std::map<std::string, std::string>& fields);

// sha256 hex of a resume token.
std::string token_hash(std::string_view token);
// What the record says about the session's gateway key: a SHA-256 of its
// configured hash ("" without keys), never the key or that hash.
std::string key_id(const GatewayKey* key);

}  // namespace toolwire::gateway::conductor
