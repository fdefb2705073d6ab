// JSON-RPC 2.0 framing: parse with every failure turned into the error
// response to send, serialize compactly (one line; nlohmann escapes control
// characters, so a message never contains a raw newline).
#include "toolwire/core/json_depth.h"
#include "toolwire/mcp/jsonrpc.h"

namespace toolwire::mcp {

using nlohmann::json;

Message Message::request(json id, std::string method, json params) {
  Message m;
  m.kind = Kind::request;
  m.id = std::move(id);
  m.method = std::move(method);
  m.params = std::move(params);
  return m;
}

Message Message::notification(std::string method, json params) {
  Message m;
  m.kind = Kind::notification;
  m.method = std::move(method);
  m.params = std::move(params);
  return m;
}

Message Message::response(json id, json result) {
  Message m;
  m.kind = Kind::response;
  m.id = std::move(id);
  m.result = std::move(result);
  return m;
}

Message Message::failure(json id, int code, std::string message, std::optional<json> data) {
  Message m;
  m.kind = Kind::error;
  m.id = std::move(id);
  m.error = RpcError{code, std::move(message), std::move(data)};
  return m;
}

namespace {

bool valid_id(const json& id) { return id.is_string() || id.is_number_integer(); }

Message invalid(json id, std::string why) {
  return Message::failure(std::move(id), rpc_error::invalid_request, "Invalid Request: " + why);
}

}  // namespace

std::optional<Message> from_json(const json& v, Message* err) {
  auto fail = [&](json id, std::string why) -> std::optional<Message> {
    if (err) *err = invalid(std::move(id), std::move(why));
    return std::nullopt;
  };
  if (!v.is_object()) return fail(nullptr, "a message must be a JSON object");
  json id = nullptr;
  auto id_it = v.find("id");
  bool has_id = id_it != v.end();
  if (has_id && valid_id(*id_it)) id = *id_it;
  auto ver = v.find("jsonrpc");
  if (ver == v.end() || *ver != "2.0") return fail(id, "\"jsonrpc\" must be \"2.0\"");
  if (has_id && !valid_id(*id_it) && !id_it->is_null())
    return fail(nullptr, "\"id\" must be a string or an integer");

  Message m;
  auto method = v.find("method");
  if (method != v.end()) {
    if (!method->is_string()) return fail(id, "\"method\" must be a string");
    m.method = method->get<std::string>();
    auto params = v.find("params");
    if (params != v.end()) {
      if (!params->is_object() && !params->is_array())
        return fail(id, "\"params\" must be an object or an array");
      m.params = *params;
    }
    if (has_id) {
      if (id_it->is_null()) return fail(nullptr, "a request id must not be null");
      m.kind = Message::Kind::request;
      m.id = id;
    } else {
      m.kind = Message::Kind::notification;
    }
    return m;
  }
  auto result = v.find("result");
  auto error = v.find("error");
  // MCP's schema lets an error answer to an unreadable message omit its id.
  if (!has_id && error == v.end()) return fail(nullptr, "a response needs an \"id\"");
  if ((result != v.end()) == (error != v.end()))
    return fail(id, "a response has exactly one of \"result\" and \"error\"");
  m.id = id;
  if (result != v.end()) {
    if (id.is_null()) return fail(nullptr, "a result needs a non-null id");
    m.kind = Message::Kind::response;
    m.result = *result;
    return m;
  }
  if (!error->is_object()) return fail(id, "\"error\" must be an object");
  auto code = error->find("code");
  auto msg = error->find("message");
  if (code == error->end() || !code->is_number_integer())
    return fail(id, "\"error.code\" must be an integer");
  if (msg == error->end() || !msg->is_string())
    return fail(id, "\"error.message\" must be a string");
  m.kind = Message::Kind::error;
  m.error.code = code->get<int>();
  m.error.message = msg->get<std::string>();
  if (auto data = error->find("data"); data != error->end()) m.error.data = *data;
  return m;
}

ParsedFrame parse_frame(std::string_view text, size_t max_depth) {
  ParsedFrame f;
  if (json_deeper_than(text, max_depth)) {
    f.errors.push_back(Message::failure(nullptr, rpc_error::parse_error,
                                        "Parse error: " + json_too_deep_message(max_depth)));
    return f;
  }
  json v = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (v.is_discarded()) {
    f.errors.push_back(Message::failure(nullptr, rpc_error::parse_error, "Parse error"));
    return f;
  }
  auto one = [&f](const json& item) {
    Message err;
    if (auto m = from_json(item, &err))
      f.messages.push_back(std::move(*m));
    else
      f.errors.push_back(std::move(err));
  };
  if (v.is_array()) {
    f.batch = true;
    if (v.empty()) f.errors.push_back(invalid(nullptr, "empty batch"));
    for (const json& item : v) one(item);
    return f;
  }
  one(v);
  return f;
}

json to_json(const Message& m) {
  json j = json::object();
  j["jsonrpc"] = "2.0";
  switch (m.kind) {
    case Message::Kind::request:
      j["id"] = m.id;
      [[fallthrough]];
    case Message::Kind::notification:
      j["method"] = m.method;
      if (!m.params.is_null()) j["params"] = m.params;
      break;
    case Message::Kind::response:
      j["id"] = m.id;
      j["result"] = m.result;
      break;
    case Message::Kind::error: {
      // No id could be read: MCP's schema (RequestId is a string or an
      // integer) wants the member left out rather than JSON-RPC's null.
      if (!m.id.is_null()) j["id"] = m.id;
      json e = {{"code", m.error.code}, {"message", m.error.message}};
      if (m.error.data) e["data"] = *m.error.data;
      j["error"] = std::move(e);
      break;
    }
  }
  return j;
}

std::string serialize(const Message& m) {
  // Invalid UTF-8 from a tool's output is replaced, not thrown on.
  return to_json(m).dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string serialize_batch(const std::vector<Message>& ms) {
  json arr = json::array();
  for (const Message& m : ms) arr.push_back(to_json(m));
  return arr.dump(-1, ' ', false, json::error_handler_t::replace);
}

void LineReader::feed(std::string_view bytes, const std::function<void(std::string_view)>& on_line,
                      const std::function<void()>& on_oversized) {
  while (!bytes.empty()) {
    size_t nl = bytes.find('\n');
    std::string_view chunk = nl == std::string_view::npos ? bytes : bytes.substr(0, nl);
    if (!skipping_) {
      if (buf_.size() + chunk.size() > max_) {
        skipping_ = true;
        buf_.clear();
        buf_.shrink_to_fit();
        on_oversized();
      } else {
        buf_.append(chunk);
      }
    }
    if (nl == std::string_view::npos) return;
    bytes.remove_prefix(nl + 1);
    if (skipping_) {
      skipping_ = false;
      continue;
    }
    std::string line = std::move(buf_);
    buf_.clear();
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") != std::string::npos) on_line(line);
  }
}

}  // namespace toolwire::mcp
