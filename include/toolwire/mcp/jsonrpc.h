// toolwire/mcp/jsonrpc.h — JSON-RPC 2.0 messages, as MCP frames them.
//
// One frame is one JSON text: a request, a notification, a response, an
// error response, or a batch (array) of them. parse_frame() never throws and
// always says what to answer: a frame that is not JSON gets a -32700 error,
// one that is JSON but no valid message gets -32600 (with the id when one
// could be read), so a peer's bad line costs an error reply, never the
// connection.
//
//   ParsedFrame f = parse_frame(line);
//   for (const Message& m : f.messages) handle(m);
//   for (const Message& e : f.errors) send(serialize(e));   // answers to bad entries
//
// LineReader splits a byte stream into newline-delimited frames (the stdio
// transport) with a size cap: an oversized line is dropped up to its end and
// reported once, and the stream goes on.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>
#include "toolwire/core/json_depth.h"

namespace toolwire::mcp {

// JSON-RPC 2.0 and MCP error codes.
namespace rpc_error {
inline constexpr int parse_error = -32700;
inline constexpr int invalid_request = -32600;
inline constexpr int method_not_found = -32601;
inline constexpr int invalid_params = -32602;
inline constexpr int internal_error = -32603;
inline constexpr int request_cancelled = -32800;  // used on our side only, never sent
}  // namespace rpc_error

struct RpcError {
  int code = rpc_error::internal_error;
  std::string message;
  std::optional<nlohmann::json> data;
};

struct Message {
  enum class Kind { request, notification, response, error };
  Kind kind = Kind::notification;
  // Request / response id: a string or an integer; null for an error answering
  // a message whose id could not be read.
  nlohmann::json id;
  std::string method;     // request, notification
  nlohmann::json params;  // request, notification; null when absent
  nlohmann::json result;  // response
  RpcError error;         // error

  bool is_request() const { return kind == Kind::request; }
  bool is_notification() const { return kind == Kind::notification; }
  bool is_response() const { return kind == Kind::response || kind == Kind::error; }

  static Message request(nlohmann::json id, std::string method, nlohmann::json params = nullptr);
  static Message notification(std::string method, nlohmann::json params = nullptr);
  static Message response(nlohmann::json id, nlohmann::json result);
  static Message failure(nlohmann::json id, int code, std::string message,
                         std::optional<nlohmann::json> data = std::nullopt);
};

struct ParsedFrame {
  std::vector<Message> messages;  // the valid messages, in frame order
  std::vector<Message> errors;    // error responses to send for the invalid ones
  bool batch = false;             // the frame was a JSON array
};

// Parses one frame. Nesting deeper than `max_depth` is refused as a parse
// error before building a DOM (a hostile peer cannot exhaust the stack).
ParsedFrame parse_frame(std::string_view text, size_t max_depth = kMaxJsonDepth);

// Reads one message from a JSON value; nullopt and `err` set when invalid.
std::optional<Message> from_json(const nlohmann::json& v, Message* err);

nlohmann::json to_json(const Message& m);
// One line of compact JSON, without the trailing newline.
std::string serialize(const Message& m);
std::string serialize_batch(const std::vector<Message>& ms);

// Newline-delimited frames with a size cap (a lone '\r' before '\n' is dropped).
class LineReader {
 public:
  explicit LineReader(size_t max_line_bytes) : max_(max_line_bytes) {}
  // Calls on_line for each complete line (empty lines skipped) and
  // on_oversized once for each line longer than the cap.
  void feed(std::string_view bytes, const std::function<void(std::string_view)>& on_line,
            const std::function<void()>& on_oversized);
  // Bytes of an unfinished line held now.
  size_t buffered() const { return buf_.size(); }

 private:
  size_t max_;
  std::string buf_;
  bool skipping_ = false;  // inside an oversized line: drop until '\n'
};

}  // namespace toolwire::mcp
