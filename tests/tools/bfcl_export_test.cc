// BFCL check: every function doc of the copied BFCL files normalises
// (from_bfcl_parameters), registers, exports to OpenAI / Anthropic / Gemini,
// and every exported schema accepts the ground-truth arguments that the
// normalised source schema accepts. OpenAI strict export is tried too: when
// a schema can be expressed strictly, the strict arguments (nulls for the
// omitted optional properties) must validate and strip back to the original.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "toolwire/schema/json_schema.h"
#include "toolwire/tools/bfcl.h"
#include "toolwire/tools/names.h"
#include "toolwire/tools/registry.h"
#include "toolwire/tools/schema_export.h"

namespace fs = std::filesystem;
using namespace toolwire;
using namespace toolwire::tools;
using namespace toolwire::schema;
using json = nlohmann::json;
using ojson = nlohmann::ordered_json;

namespace {

const fs::path kDir = fs::path(TOOLWIRE_TEST_DATA) / "bfcl";

std::vector<ojson> read_lines(const fs::path& p) {
  std::vector<ojson> out;
  std::ifstream in(p);
  std::string line;
  while (std::getline(in, line))
    if (!line.empty()) out.push_back(ojson::parse(line));
  return out;
}

json plain(const ojson& j) { return json::parse(j.dump()); }

// Ground truth "value" -> one concrete argument value (first acceptable one);
// nullopt when "" (may be omitted) is the only choice.
std::optional<json> pick(const ojson& choices, const ojson& schema);

json concrete(const ojson& v, const ojson& schema) {
  const ojson props =
      schema.is_object() ? schema.value("properties", ojson::object()) : ojson::object();
  if (v.is_object() && !props.empty()) {  // nested dict: members are choice lists again
    json out = json::object();
    for (auto it = v.begin(); it != v.end(); ++it) {
      ojson sub = props.contains(it.key()) ? props[it.key()] : ojson::object();
      if (it->is_array()) {
        if (auto p = pick(*it, sub)) out[it.key()] = *p;
      } else {
        out[it.key()] = plain(*it);
      }
    }
    return out;
  }
  if (v.is_array() && schema.is_object() && schema.contains("items")) {
    json out = json::array();
    for (const auto& e : v) out.push_back(concrete(e, schema["items"]));
    return out;
  }
  return plain(v);
}

std::optional<json> pick(const ojson& choices, const ojson& schema) {
  if (!choices.is_array()) return plain(choices);
  for (const auto& c : choices)
    if (!(c.is_string() && c.get<std::string>().empty())) return concrete(c, schema);
  return std::nullopt;
}

// Gemini's OpenAPI subset back to JSON Schema so the validator can run it.
ojson gemini_to_json_schema(ojson s) {
  if (!s.is_object()) return s;
  for (auto& [k, v] : s.items()) {
    if (k == "properties")
      for (auto& [pk, pv] : v.items()) pv = gemini_to_json_schema(pv);
    else if (k == "items")
      v = gemini_to_json_schema(v);
    else if (k == "anyOf")
      for (auto& e : v) e = gemini_to_json_schema(e);
  }
  if (s.value("nullable", false)) {
    s.erase("nullable");
    if (s.contains("type")) s["type"] = ojson::array({s["type"], "null"});
    if (s.contains("enum")) s["enum"].push_back(nullptr);
    if (s.contains("anyOf")) s["anyOf"].push_back({{"type", "null"}});
  }
  return s;
}

// Strict-mode arguments: every omitted optional property sent as null.
void fill_nulls(const ojson& strict_schema, json& args) {
  if (args.is_array() && strict_schema.is_object() && strict_schema.contains("items")) {
    for (auto& e : args) fill_nulls(strict_schema["items"], e);
    return;
  }
  if (!args.is_object() || !strict_schema.is_object() || !strict_schema.contains("properties"))
    return;
  for (auto& [k, sub] : strict_schema["properties"].items()) {
    if (!args.contains(k))
      args[k] = nullptr;
    else
      fill_nulls(sub, args[k]);
  }
}

struct Counts {
  int functions = 0, strict_ok = 0, examples = 0, source_accepts = 0;
};

void check_file(const std::string& category, Counts& n) {
  auto questions = read_lines(kDir / ("BFCL_v4_" + category + ".json"));
  auto answers = read_lines(kDir / "possible_answer" / ("BFCL_v4_" + category + ".json"));
  EXPECT_FALSE(questions.empty());
  std::map<std::string, ojson> truth;
  for (const auto& a : answers) truth[a["id"].get<std::string>()] = a["ground_truth"];

  for (const auto& q : questions) {
    const std::string id = q["id"];
    Registry reg;
    std::map<std::string, ojson> schemas;
    for (const auto& doc : q["function"]) {
      ++n.functions;
      const std::string name = doc["name"];
      ojson schema = from_bfcl_parameters(doc["parameters"]);
      schemas[name] = schema;
      ToolSpec spec;
      spec.name = name;
      spec.description = doc.value("description", "");
      spec.input_schema = schema.dump();
      spec.handler = SyncHandler([](const json& a, ToolContext&) { return ToolOutput::json(a); });
      Status st = reg.add(std::move(spec));
      ASSERT_TRUE(st.ok()) << id << " " << name << ": " << st.error().to_string();
      const Tool& tool = *reg.find(name);
      EXPECT_TRUE(is_wire_name(tool.wire_name())) << tool.wire_name();
      for (const dialects::Dialect& d : dialects::all_dialects()) {
        if (!d.export_tool) continue;
        auto e = export_tool(tool, d.name);
        EXPECT_TRUE(e.ok()) << id << " " << name << " " << d.name << ": " << e.error().to_string();
      }
      if (to_openai_strict_schema(schema).ok()) ++n.strict_ok;
    }
    auto t = truth.find(id);
    if (t == truth.end()) continue;
    for (const auto& call : t->second) {
      for (auto& [fname, params] : call.items()) {
        const Tool* tool = reg.find(fname);
        ASSERT_NE(tool, nullptr) << id << " " << fname;
        const ojson& schema = schemas[fname];
        json args = json::object();
        for (auto& [p, choices] : params.items()) {
          ojson sub = schema["properties"].contains(p) ? schema["properties"][p] : ojson::object();
          if (auto v = pick(choices, sub)) args[p] = *v;
        }
        ++n.examples;
        if (!tool->compiled().accepts(args)) continue;  // the source itself rejects it: not counted
        ++n.source_accepts;
        std::string where = id + " " + fname + " " + args.dump();
        auto openai = export_tool(*tool, "openai");
        auto anthropic = export_tool(*tool, "anthropic");
        auto gemini = export_tool(*tool, "gemini");
        ASSERT_TRUE(openai.ok() && anthropic.ok() && gemini.ok()) << where;
        for (const ojson& s : {(*openai)["function"]["parameters"], (*anthropic)["input_schema"],
                               gemini_to_json_schema((*gemini)["parameters"])}) {
          auto c = CompiledSchema::compile(plain(s));
          ASSERT_TRUE(c.ok()) << where << " " << s.dump() << ": " << c.error().to_string();
          EXPECT_TRUE(c->accepts(args)) << where << "\nschema: " << s.dump();
        }
        // Dispatch under the wire name: validation passes, arguments arrive intact.
        ir::ToolCallPart tc{"c1", tool->wire_name(), args.dump(), true};
        ir::ToolResultPart r = reg.dispatch(tc);
        EXPECT_FALSE(r.is_error) << where;
        auto strict = to_openai_strict_schema(schema);
        if (strict.ok()) {
          json strict_args = args;
          fill_nulls(*strict, strict_args);
          auto c = CompiledSchema::compile(plain(*strict));
          ASSERT_TRUE(c.ok()) << where;
          EXPECT_TRUE(c->accepts(strict_args))
              << where << "\nstrict: " << strict->dump() << "\nargs: " << strict_args.dump();
          strip_strict_nulls(plain(schema), strict_args);
          EXPECT_EQ(strict_args, args) << where;
        }
      }
    }
  }
}

struct FileExpect {
  const char* category;
  int functions, strict_ok, examples, source_accepts;
};

// Measured once and documented in docs/tools.md; a change here is a regression
// (or an improvement to write down).
const FileExpect kFiles[] = {
#include "bfcl_expected.inc"
};

class BfclExport : public ::testing::TestWithParam<FileExpect> {};

TEST_P(BfclExport, EveryFunctionExportsAndAcceptsGroundTruth) {
  const FileExpect& e = GetParam();
  Counts n;
  check_file(e.category, n);
  std::cout << "BFCL " << e.category << ": functions=" << n.functions
            << " strict_ok=" << n.strict_ok << " examples=" << n.examples
            << " source_accepts=" << n.source_accepts << "\n";
  EXPECT_EQ(n.functions, e.functions);
  EXPECT_EQ(n.strict_ok, e.strict_ok);
  EXPECT_EQ(n.examples, e.examples);
  EXPECT_EQ(n.source_accepts, e.source_accepts);
}

INSTANTIATE_TEST_SUITE_P(Files, BfclExport, ::testing::ValuesIn(kFiles),
                         [](const auto& info) { return std::string(info.param.category); });

TEST(BfclMapping, PythonAndJavaTypes) {
  ojson in = ojson::parse(R"({"type":"dict","required":["a","ghost"],"optional":true,"properties":{
      "a":{"type":"float","default":"None"},"b":{"type":"tuple","items":{"type":"integer"}},
      "c":{"type":"any"},"d":{"type":"HashMap"},"e":{"type":"long","default":3},"f":{"type":""},
      "g":{"type":"dict","properties":{"h":{"type":"String"}}}}})");
  ojson out = from_bfcl_parameters(in);
  EXPECT_EQ(plain(out), json::parse(R"({"type":"object","required":["a"],"properties":{
      "a":{"type":"number"},"b":{"type":"array","items":{"type":"integer"}},"c":{},"d":{"type":"object"},
      "e":{"type":"integer","default":3},"f":{},"g":{"type":"object","properties":{"h":{"type":"string"}}}}})"));
}

}  // namespace
