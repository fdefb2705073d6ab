// CompiledSchema: valijson behind a small value type. The schema is
// normalised (normalize.cc), checked against the draft-07 meta-schema, then
// compiled once; validation reuses the compiled form from any thread.
#include <algorithm>
#include <exception>
#include <memory>
#include <string>

#include "tools/schema/pattern_constraint.h"  // first: sets VALIJSON_USE_EXCEPTIONS

#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validation_results.hpp>
#include <valijson/validator.hpp>

#include "toolwire/core/json_depth.h"
#include "toolwire/tools/schema.h"

namespace toolwire::tools {

using nlohmann::json;

struct CompiledSchema::Impl {
  json source;
  json normalized;  // valijson's subschemas point into this document
  valijson::Schema schema;
};

namespace {

// valijson context ["<root>", "[a]", "[0]"] -> JSON pointer "/a/0".
std::string to_pointer(const std::vector<std::string>& context) {
  std::string out;
  for (const auto& c : context) {
    if (c == "<root>") continue;
    std::string seg =
        (c.size() >= 2 && c.front() == '[' && c.back() == ']') ? c.substr(1, c.size() - 2) : c;
    out.push_back('/');
    for (char ch : seg) {
      if (ch == '~')
        out += "~0";
      else if (ch == '/')
        out += "~1";
      else
        out.push_back(ch);
    }
  }
  return out;
}

// "Missing required property 'city'." at "" -> ("/city", "required property missing").
Violation to_violation(const valijson::ValidationResults::Error& e) {
  Violation v{to_pointer(e.context), e.description};
  const std::string missing = "Missing required property '";
  if (v.message.rfind(missing, 0) == 0) {
    std::string prop = v.message.substr(missing.size());
    if (prop.size() >= 2) prop.resize(prop.size() - 2);  // drop "'."
    v.pointer += "/" + prop;
    v.message = "required property missing";
    return v;
  }
  if (!v.message.empty() && v.message.back() == '.') v.message.pop_back();
  if (!v.message.empty() && v.message[0] >= 'A' && v.message[0] <= 'Z')
    v.message[0] = char(v.message[0] - 'A' + 'a');
  return v;
}

bool is_summary(const std::string& d) { return d.rfind("Failed to validate", 0) == 0; }

bool is_prefix(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  return a.size() < b.size() && std::equal(a.begin(), a.end(), b.begin());
}

valijson::Validator& thread_validator() {
  // The validator caches std::regex objects (patternProperties) and is not
  // thread safe; one per thread, shared by all schemas (keyed by pattern).
  thread_local valijson::Validator v(valijson::Validator::kStrongTypes);
  return v;
}

const valijson::Schema& draft7_meta() {
  static const auto* meta = [] {
    static const json doc = json::parse(
#include "tools/schema/draft7_metaschema.inc"
    );
    auto* s = new valijson::Schema();
    valijson::SchemaParser parser(valijson::SchemaParser::kDraft7);
    valijson::adapters::NlohmannJsonAdapter adapter(doc);
    parser.populateSchema(adapter, *s);
    return s;
  }();
  return *meta;
}

std::vector<Violation> collect(const valijson::Schema& schema, const json& instance, size_t max,
                               bool* ok) {
  valijson::ValidationResults results;
  valijson::adapters::NlohmannJsonAdapter target(instance);
  std::vector<Violation> out;
  try {
    *ok = thread_validator().validate(schema, target, &results);
  } catch (const std::exception& e) {
    *ok = false;
    out.push_back({"", std::string("schema could not be evaluated: ") + e.what()});
    return out;
  }
  if (*ok) return out;
  std::vector<valijson::ValidationResults::Error> errors(results.begin(), results.end());
  for (size_t i = 0; i < errors.size(); ++i) {
    bool redundant = false;
    if (is_summary(errors[i].description)) {
      for (size_t j = 0; j < errors.size() && !redundant; ++j)
        redundant = j != i && is_prefix(errors[i].context, errors[j].context);
    }
    if (redundant) continue;
    out.push_back(to_violation(errors[i]));
    if (max && out.size() >= max) break;
  }
  if (out.empty()) out.push_back({"", "value does not match the schema"});
  return out;
}

// valijson follows $ref chains without cycle detection ("TODO: Need to detect
// degenerate circular references"), so {"$ref":"#"} recursed until the stack
// overflowed. Walk each chain the way valijson resolves it (a non-absolute
// URI part is the current document) and refuse a cycle.
bool is_absolute_uri(const std::string& s) {
  auto colon = s.find(':');
  return colon != std::string::npos && colon > 0 && s.find('/') > colon;
}

const json* resolve_pointer(const json& root, std::string ptr) {
  while (!ptr.empty() && ptr.back() == '/') ptr.pop_back();
  if (ptr.empty()) return &root;
  try {
    return &root.at(json::json_pointer(ptr));
  } catch (const std::exception&) {
    return nullptr;  // valijson reports the bad pointer itself
  }
}

std::string find_ref_cycle(const json& root) {
  std::vector<const json*> stack{&root};
  while (!stack.empty()) {
    const json* node = stack.back();
    stack.pop_back();
    if (!node->is_structured()) continue;
    for (const auto& child : *node) stack.push_back(&child);
    std::vector<const json*> seen{node};
    const json* cur = node;
    for (int hops = 0; hops < 1000 && cur->is_object(); ++hops) {
      auto it = cur->find("$ref");
      if (it == cur->end() || !it->is_string()) break;
      const std::string& ref = it->get_ref<const std::string&>();
      size_t hash = ref.find('#');
      std::string doc = ref.substr(0, hash);
      if (!doc.empty() && is_absolute_uri(doc)) break;  // another document
      const json* next =
          resolve_pointer(root, hash == std::string::npos ? "" : ref.substr(hash + 1));
      if (!next) break;
      if (std::find(seen.begin(), seen.end(), next) != seen.end()) return ref;
      seen.push_back(next);
      cur = next;
    }
  }
  return {};
}

std::string join(const std::vector<Violation>& vs) {
  std::string msg;
  for (const auto& v : vs) {
    if (!msg.empty()) msg.push_back('\n');
    msg += (v.pointer.empty() ? "/" : v.pointer) + ": " + v.message;
  }
  return msg;
}

}  // namespace

CompiledSchema::CompiledSchema(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
CompiledSchema::CompiledSchema(CompiledSchema&&) noexcept = default;
CompiledSchema& CompiledSchema::operator=(CompiledSchema&&) noexcept = default;
CompiledSchema::~CompiledSchema() = default;

Result<CompiledSchema> CompiledSchema::compile(std::string_view schema_json,
                                               const SchemaOptions& opts) {
  if (json_deeper_than(schema_json))
    return make_error(ErrorCode::invalid_argument, "schema is " + json_too_deep_message());
  json doc = json::parse(schema_json, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded())
    return make_error(ErrorCode::invalid_argument, "schema is not valid JSON");
  return compile(doc, opts);
}

Result<CompiledSchema> CompiledSchema::compile(const json& schema, const SchemaOptions& opts) {
  if (!schema.is_object() && !schema.is_boolean())
    return make_error(ErrorCode::invalid_argument, "schema must be an object or a boolean");
  auto impl = std::make_unique<Impl>();
  impl->source = schema;
  impl->normalized = normalize_to_draft7(schema);
  if (opts.check_meta) {
    bool ok = true;
    auto vs = collect(draft7_meta(), impl->normalized, 4, &ok);
    if (!ok) return make_error(ErrorCode::invalid_argument, "invalid schema: " + join(vs));
  }
  if (std::string ref = find_ref_cycle(impl->normalized); !ref.empty())
    return make_error(ErrorCode::invalid_argument,
                      "invalid schema: circular $ref '" + ref + "' resolves to itself");
  try {
    valijson::SchemaParser parser(valijson::SchemaParser::kDraft7);
    parser.addConstraintBuilder(schema_detail::kPatternKeyword,
                                new schema_detail::Re2PatternBuilder());
    valijson::adapters::NlohmannJsonAdapter adapter(impl->normalized);
    using Fetch = valijson::SchemaParser::FunctionPtrs<valijson::adapters::NlohmannJsonAdapter>;
    Fetch::FetchDoc fetch = [&opts](const std::string& uri) -> const json* {
      if (!opts.resolve_remote)
        throw std::runtime_error("remote $ref '" + uri + "' is not allowed");
      auto doc = opts.resolve_remote(uri);
      if (!doc) throw std::runtime_error("cannot resolve remote $ref '" + uri + "'");
      auto* normalized = new json(normalize_to_draft7(*doc));
      if (!find_ref_cycle(*normalized).empty()) {
        delete normalized;
        throw std::runtime_error("circular $ref in remote document '" + uri + "'");
      }
      return normalized;
    };
    Fetch::FreeDoc free_doc = [](const json* d) { delete d; };
    parser.populateSchema(adapter, impl->schema, fetch, free_doc);
  } catch (const std::exception& e) {
    return make_error(ErrorCode::invalid_argument, std::string("invalid schema: ") + e.what());
  }
  return CompiledSchema(std::move(impl));
}

const json& CompiledSchema::source() const { return impl_->source; }

std::vector<Violation> CompiledSchema::violations(const json& instance, size_t max) const {
  bool ok = true;
  return collect(impl_->schema, instance, max, &ok);
}

bool CompiledSchema::accepts(const json& instance) const {
  try {
    valijson::adapters::NlohmannJsonAdapter target(instance);
    return thread_validator().validate(impl_->schema, target, nullptr);
  } catch (const std::exception&) {
    return false;
  }
}

Status CompiledSchema::validate(const json& instance) const {
  if (accepts(instance)) return {};
  return make_error(ErrorCode::invalid_argument, join(violations(instance, 8)));
}

}  // namespace toolwire::tools
