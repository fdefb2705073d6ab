// libFuzzer: the MCP JSON-RPC path. Bytes are split into lines (in two
// chunkings that must agree), each line parsed; every valid message must
// serialize to one line that parses back to the same message; and an
// mcp::Server over an empty registry must answer every request exactly once
// without throwing.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "toolwire/mcp/jsonrpc.h"
#include "toolwire/mcp/server.h"

namespace {

std::vector<std::string> split(std::string_view in, size_t chunk, int* oversized) {
  toolwire::mcp::LineReader r(4096);
  std::vector<std::string> lines;
  for (size_t i = 0; i < in.size(); i += chunk)
    r.feed(
        in.substr(i, chunk), [&](std::string_view l) { lines.emplace_back(l); },
        [&] { ++*oversized; });
  return lines;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace toolwire::mcp;
  std::string_view in(reinterpret_cast<const char*>(data), size);
  int over_a = 0, over_b = 0;
  auto a = split(in, in.size() ? in.size() : 1, &over_a);
  auto b = split(in, 7, &over_b);
  if (a != b || over_a != over_b) std::abort();

  static toolwire::tools::Registry empty;
  size_t requests = 0, answers = 0;
  {
    Server server(empty, {}, [&](std::string frame) {
      if (frame.find('\n') != std::string::npos) std::abort();
      ++answers;
    });
    for (const std::string& line : a) {
      ParsedFrame f = parse_frame(line);
      for (const Message& m : f.messages) {
        std::string s = serialize(m);
        if (s.find('\n') != std::string::npos) std::abort();
        ParsedFrame back = parse_frame(s);
        if (back.messages.size() != 1 || !back.errors.empty()) {
          std::fprintf(stderr, "re-parse failed: %s\n", s.c_str());
          std::abort();
        }
        if (serialize(back.messages[0]) != s) std::abort();
      }
      for (const Message& e : f.errors)
        if (e.kind != Message::Kind::error) std::abort();
      // Requests in a single (non-batch) frame are each answered once; a batch
      // gets one refusal; invalid entries one error each.
      if (f.batch) {
        ++requests;
      } else {
        requests += f.errors.size();
        // With no tools, tools/call is answered at once too (unknown tool).
        for (const Message& m : f.messages)
          if (m.is_request()) ++requests;
      }
      server.handle_frame(line);
    }
    server.shutdown();
  }
  if (answers != requests) {
    std::fprintf(stderr, "%zu requests, %zu answers\n", requests, answers);
    std::abort();
  }
  return 0;
}
