// JSON-Schema-Test-Suite runner for the keywords tool schemas use (see
// docs/tools.md). Every test not in kSkips must pass; every skip names its
// reason; the per-file pass counts must equal kExpected, so a regression (or
// an unexpected improvement, which should then update the table) fails.
// TOOLWIRE_CONFORMANCE_TABLE=path writes the markdown table for the docs.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

#include "skips.h"
#include "toolwire/tools/schema.h"

namespace fs = std::filesystem;
using nlohmann::json;
using toolwire::tools::CompiledSchema;
using toolwire::tools::SchemaOptions;

namespace {

const fs::path kSuite = fs::path(TOOLWIRE_TEST_DATA) / "json-schema-test-suite";
const fs::path kMeta = fs::path(TOOLWIRE_TEST_DATA) / "json-schema-metaschemas";

std::optional<json> read_json(const fs::path& p) {
  std::ifstream in(p);
  if (!in) return std::nullopt;
  json j = json::parse(in, nullptr, false);
  if (j.is_discarded()) return std::nullopt;
  return j;
}

// http://localhost:1234/<p> -> remotes/<p>; json-schema.org meta-schemas -> offline copies.
std::optional<json> resolve(const std::string& uri_in) {
  std::string uri = uri_in.substr(0, uri_in.find('#'));
  const std::string local = "http://localhost:1234/";
  if (uri.rfind(local, 0) == 0) return read_json(kSuite / "remotes" / uri.substr(local.size()));
  for (const char* prefix : {"http://json-schema.org/", "https://json-schema.org/"})
    if (uri.rfind(prefix, 0) == 0) return read_json(kMeta / uri.substr(std::string(prefix).size()));
  return std::nullopt;
}

struct FileResult {
  int total = 0, passed = 0, skipped = 0;
  std::vector<std::string> failures;
};

FileResult run_file(const std::string& draft, const std::string& name) {
  FileResult r;
  auto cases = read_json(kSuite / "tests" / draft / (name + ".json"));
  EXPECT_TRUE(cases.has_value()) << draft << "/" << name;
  if (!cases) return r;
  SchemaOptions opts;
  opts.resolve_remote = resolve;
  for (const auto& c : *cases) {
    json schema = c["schema"];
    // The draft7 folder is draft-07 whatever the schema says (suite rule).
    if (draft == "draft7" && schema.is_object() && !schema.contains("$schema"))
      schema["$schema"] = "http://json-schema.org/draft-07/schema#";
    if (std::getenv("TOOLWIRE_SUITE_VERBOSE"))
      std::cerr << draft << "/" << name << ": " << c["description"] << "\n";
    auto compiled = CompiledSchema::compile(schema, opts);
    for (const auto& t : c["tests"]) {
      ++r.total;
      std::string id =
          c["description"].get<std::string>() + " / " + t["description"].get<std::string>();
      if (skip_reason(draft, name, id)) {
        ++r.skipped;
        continue;
      }
      bool ok = compiled.ok() && compiled->accepts(t["data"]) == t["valid"].get<bool>();
      if (ok)
        ++r.passed;
      else
        r.failures.push_back(id +
                             (compiled.ok() ? "" : " [compile: " + compiled.error().message + "]"));
    }
  }
  return r;
}

class JsonSchemaSuite : public ::testing::TestWithParam<Expected> {};

TEST_P(JsonSchemaSuite, PassCountMatches) {
  const Expected& e = GetParam();
  FileResult r = run_file(e.draft, e.file);
  for (const auto& f : r.failures) ADD_FAILURE() << e.draft << "/" << e.file << ": " << f;
  EXPECT_EQ(r.total, e.total);
  EXPECT_EQ(r.passed, e.passed);
  EXPECT_EQ(r.passed + r.skipped, r.total);
}

INSTANTIATE_TEST_SUITE_P(Files, JsonSchemaSuite, ::testing::ValuesIn(kExpected),
                         [](const auto& info) {
                           std::string n = std::string(info.param.draft) + "_" + info.param.file;
                           for (char& ch : n)
                             if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return n;
                         });

// Writes the docs table when asked; also checks every skip still matches a test.
TEST(JsonSchemaSuiteTable, SkipsAreLiveAndTableWritten) {
  std::ostringstream md;
  md << "| draft | file | tests | passed | skipped |\n| --- | --- | ---: | ---: | ---: |\n";
  int total = 0, passed = 0, skipped = 0;
  for (const auto& e : kExpected) {
    FileResult r = run_file(e.draft, e.file);
    md << "| " << e.draft << " | " << e.file << ".json | " << r.total << " | " << r.passed << " | "
       << r.skipped << " |\n";
    total += r.total, passed += r.passed, skipped += r.skipped;
  }
  md << "| **all** | | " << total << " | " << passed << " | " << skipped << " |\n";
  size_t skip_count = 0;
  for (const auto& s : kSkips) skip_count += (s.test != nullptr);
  EXPECT_EQ(static_cast<size_t>(skipped), skip_count) << "a skip entry no longer matches a test";
  if (const char* out = std::getenv("TOOLWIRE_CONFORMANCE_TABLE")) {
    std::ofstream f(out);
    f << md.str();
  }
}

}  // namespace
