// Helpers for the openai_chat codec tests: fixture loading, SSE building from
// the published chunk lists, chunked stream decoding and event printing.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "toolwire/codec/codec.h"

namespace toolwire::codec::openai_chat_test {

const Codec& openai();

inline std::string read_fixture(const std::string& name) {
  std::ifstream in(std::string(TOOLWIRE_TEST_DATA) + "/wire/" + name, std::ios::binary);
  EXPECT_TRUE(in.good()) << "missing fixture " << name;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// One JSON value per line, skipping blank lines and the `....` elision line.
inline std::vector<std::string> fixture_lines(const std::string& name) {
  std::vector<std::string> out;
  std::istringstream in(read_fixture(name));
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line.find_first_not_of(" \t\r") == std::string::npos) continue;
    if (line.rfind("....", 0) == 0) continue;
    out.push_back(line);
  }
  return out;
}

// `data: <json>\n\n` per chunk and a final `data: [DONE]\n\n`.
inline std::string sse_from_chunks(const std::vector<std::string>& chunks, bool done = true) {
  std::string out;
  for (const auto& c : chunks) out += "data: " + c + "\n\n";
  if (done) out += "data: [DONE]\n\n";
  return out;
}

std::string describe(const ir::StreamEvent& e);
std::string describe(const std::vector<ir::StreamEvent>& events);

struct StreamResult {
  std::vector<ir::StreamEvent> events;
  Status status;  // first failure of feed or finish
};

// Feeds `bytes` cut at the given offsets (ascending), then finish().
StreamResult decode_stream(std::string_view bytes, const std::vector<size_t>& cuts = {});

}  // namespace toolwire::codec::openai_chat_test
