// One recorded upstream exchange, and its file (docs/replay.md).
//
// A folder holds one JSON file per exchange, named `NNNNNN-<hash>.json`
// (the order they were recorded in, and a hash of the request's key):
//
//   {"toolwire_recording": 1,
//    "request": {"method": "POST", "target": "/v1/chat/completions",
//                "body": {...the request's JSON...}},
//    "response": {"status": 200, "head_ms": 3.1,
//                 "headers": [["content-type", "text/event-stream"], ...],
//                 "chunks": [{"at_ms": 3.4, "text": "data: {...}\n\n"},
//                            {"at_ms": 9.0, "base64": "AAAA..."}]}}
//
// A stream's chunks are its events (SSE: each ends at a blank line), with
// the time each arrived; other bodies are recorded as they came. Bytes
// that are not UTF-8 (the AWS event stream) are written in base64. No
// request header is recorded (keys, signatures), nor any secret-looking
// response header. Files are read as untrusted input: parse_exchange checks
// every member and says which one is wrong.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "toolwire/core/result.h"

namespace toolwire::gateway::replay {

struct Chunk {
  double at_ms = 0;  // since the request was sent
  std::string bytes;
};

struct Exchange {
  std::string method;
  std::string target;  // path?query (normalize.h: request_target)
  std::string body;    // the request body as sent
  int status = 0;
  double head_ms = 0;
  std::vector<std::pair<std::string, std::string>> headers;
  std::vector<Chunk> chunks;
  std::string file;  // where it was loaded from (for messages)
};

// The file's text.
std::string to_file(const Exchange& e);
// A file's text back; an error names `name` and the member at fault.
Result<Exchange> parse_exchange(std::string_view text, std::string_view name = "<recording>");

// Every `*.json` of `dir` in name order; an unreadable or malformed file is
// an error (a recording that silently lost an exchange would mislead).
Result<std::vector<Exchange>> load_folder(const std::string& dir);

// Response headers never recorded (cookies, anything carrying a secret).
bool secret_header(std::string_view name);

}  // namespace toolwire::gateway::replay
