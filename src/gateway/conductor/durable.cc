#include "gateway/conductor/durable.h"

#include "gateway/shared_state/conversation_codec.h"
#include "toolwire/core/json_depth.h"
#include "toolwire/gateway/auth.h"

namespace toolwire::gateway::conductor {
namespace {

using json = nlohmann::json;
constexpr int kFormat = 1;

const std::string* field(const std::map<std::string, std::string>& f, const char* name) {
  auto it = f.find(name);
  return it == f.end() ? nullptr : &it->second;
}

}  // namespace

std::string token_hash(std::string_view token) { return sha256_hex(token); }

std::string key_id(const GatewayKey* key) {
  return key ? token_hash(key->config().sha256_hex) : std::string();
}

std::vector<std::string> encode_record(const SessionRecord& r) {
  json meta = {{"v", kFormat},         {"start", r.start},   {"seq", r.seq},
               {"in_turn", r.in_turn}, {"rounds", r.rounds}, {"resumable", r.resumable},
               {"text", r.text}};
  json replay = json::array();
  for (const auto& [seq, frame] : r.replay) replay.push_back({seq, frame});
  meta["replay"] = std::move(replay);
  json remote = json::array(), deadlines = json::array();
  for (size_t i = 0; i < r.calls.size(); ++i) {
    remote.push_back(i < r.remote.size() && r.remote[i]);
    deadlines.push_back(i < r.deadlines.size() ? r.deadlines[i] : 0);
  }
  meta["remote"] = std::move(remote);
  meta["deadlines"] = std::move(deadlines);
  std::vector<ir::Part> calls(r.calls.begin(), r.calls.end());
  std::vector<ir::Part> results(r.results.begin(), r.results.end());
  return {"key",     r.key,
          "token",   r.token_hash,
          "meta",    meta.dump(-1, ' ', false, json::error_handler_t::replace),
          "history", shared_state::encode_messages(r.history),
          "turn",    shared_state::encode_messages(r.turn),
          "calls",   shared_state::encode_parts(calls),
          "results", shared_state::encode_parts(results)};
}

std::optional<SessionRecord> decode_record(const std::map<std::string, std::string>& f) {
  const std::string *key = field(f, "key"), *token = field(f, "token"), *meta = field(f, "meta"),
                    *history = field(f, "history"), *turn = field(f, "turn"),
                    *calls = field(f, "calls"), *results = field(f, "results");
  if (!key || !token || !meta || !history || !turn || !calls || !results) return std::nullopt;
  SessionRecord r;
  r.key = *key;
  r.token_hash = *token;
  try {
    json m = parse_json_bounded<json>(*meta);
    if (!m.is_object() || m.value("v", 0) != kFormat) return std::nullopt;
    r.start = m.at("start");
    if (!r.start.is_object()) return std::nullopt;
    r.seq = m.at("seq").get<uint64_t>();
    r.in_turn = m.at("in_turn").get<bool>();
    r.rounds = m.at("rounds").get<int>();
    r.resumable = m.at("resumable").get<bool>();
    r.text = m.at("text").get<std::string>();
    for (const auto& e : m.at("replay"))
      r.replay.emplace_back(e.at(0).get<uint64_t>(), e.at(1).get<std::string>());
    for (const auto& e : m.at("remote")) r.remote.push_back(e.get<bool>());
    for (const auto& e : m.at("deadlines")) r.deadlines.push_back(e.get<int64_t>());
  } catch (const std::exception&) {
    return std::nullopt;
  }
  auto h = shared_state::decode_messages(*history);
  auto t = shared_state::decode_messages(*turn);
  auto c = shared_state::decode_parts(*calls);
  auto res = shared_state::decode_parts(*results);
  if (!h || !t || !c || !res) return std::nullopt;
  r.history = std::move(*h);
  r.turn = std::move(*t);
  for (auto& p : *c) {
    auto* call = std::get_if<ir::ToolCallPart>(&p);
    if (!call) return std::nullopt;
    r.calls.push_back(std::move(*call));
  }
  for (auto& p : *res) {
    auto* result = std::get_if<ir::ToolResultPart>(&p);
    if (!result) return std::nullopt;
    r.results.push_back(std::move(*result));
  }
  if (r.remote.size() != r.calls.size() || r.deadlines.size() != r.calls.size() || r.rounds < 0)
    return std::nullopt;
  return r;
}

}  // namespace toolwire::gateway::conductor
