// A throw-away tree for the sandbox tests:
//   <tmp>/outside/secret.txt   "TOP SECRET ..." (must never be read or changed)
//   <tmp>/ws/                  the workspace root
//   <tmp>/ws/hello.txt, <tmp>/ws/sub/inner.txt
// plus helpers to build the built-in tools over it and call them by name.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "toolwire/tools/builtin.h"

namespace twtest {

namespace fs = std::filesystem;
inline constexpr const char* kSecret = "TOP SECRET: the outside file";

inline std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void spit(const fs::path& p, const std::string& s) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << s;
}

struct Tree {
  fs::path base, ws, outside;
  Tree() {
    std::string tmpl = (fs::temp_directory_path() / "twsbXXXXXX").string();
    base = mkdtemp(tmpl.data());
    ws = base / "ws";
    outside = base / "outside";
    fs::create_directories(ws / "sub");
    fs::create_directories(outside);
    spit(outside / "secret.txt", kSecret);
    spit(outside / "inner.txt", kSecret);
    spit(ws / "hello.txt", "line one\nline two\nline three\n");
    spit(ws / "sub" / "inner.txt", "INSIDE\n");
  }
  ~Tree() {
    std::error_code ec;
    fs::remove_all(base, ec);
  }
  // Every file under outside/ with its content: compared before and after.
  std::map<std::string, std::string> outside_snapshot() const {
    std::map<std::string, std::string> m;
    for (auto& e : fs::recursive_directory_iterator(outside))
      m[e.path().string()] = e.is_regular_file() ? slurp(e.path()) : std::string("<dir>");
    return m;
  }
};

struct Tools {
  std::map<std::string, toolwire::tools::ToolSpec> by_name;
  toolwire::tools::ToolOutput call(const std::string& name, const nlohmann::json& args,
                                   toolwire::tools::ToolContext ctx = {}) {
    auto it = by_name.find(name);
    if (it == by_name.end()) return toolwire::tools::ToolOutput::error("tool not enabled: " + name);
    return std::get<toolwire::tools::SyncHandler>(it->second.handler)(args, ctx);
  }
};

inline Tools make_tools(const toolwire::tools::BuiltinOptions& opt) {
  auto specs = toolwire::tools::builtin_tool_specs(opt);
  EXPECT_TRUE(specs.ok()) << (specs.ok() ? "" : specs.error().to_string());
  Tools t;
  if (specs)
    for (auto& s : *specs) t.by_name.emplace(s.name, std::move(s));
  return t;
}

inline std::string text(const toolwire::tools::ToolOutput& o) {
  std::string s;
  for (const auto& c : o.content)
    if (auto* tp = std::get_if<toolwire::ir::TextPart>(&c)) s += tp->text;
  return s;
}

}  // namespace twtest
