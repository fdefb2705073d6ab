#include "dialects/common/json_in.h"

#include "dialects/common/dom_json.h"
#include "dialects/common/json_fault.h"
#include "dialects/common/source_text.h"
#include "toolwire/core/enum_names.h"

#include <charconv>

namespace toolwire::dialects::json {

namespace {

void append_index(std::string& out, uint64_t index) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, index);
  out.push_back('[');
  out.append(buf, end);
  out.push_back(']');
}

}  // namespace

bool SourcePlace::append_to(std::string& out) const {
  const ir::SourceSpan* found = nullptr;
  for (size_t i = 0; i < size && !found; ++i) {
    const ir::SourceSpan& s = spans[i];
    if (s.message != message) continue;
    // The message: its first span; a part: the span holding it.
    if (part == ir::SourceSpan::kWhole || (s.first_part <= part && part < s.end_part)) found = &s;
  }
  if (!found) return false;
  out.append("$.").append(messages);
  append_index(out, found->source);
  if (part == ir::SourceSpan::kWhole || found->key.empty()) return true;
  out.push_back('.');
  out.append(found->key);
  if (found->index != ir::SourceSpan::kWhole) append_index(out, found->index);
  if (!found->inner.empty()) out.append(".").append(found->inner);
  return true;
}

void Path::append_to(std::string& out) const {
  // Frames are written root first, so a placed frame starts the text: it
  // replaces the IR path above it with the client's.
  if (place_ && !place_->messages.empty() && place_->append_to(out)) return;
  if (!parent_) {
    out.push_back('$');
    return;
  }
  parent_->append_to(out);
  if (index_ >= 0) {
    append_index(out, static_cast<uint64_t>(index_));
  } else {
    out.push_back('.');
    out.append(key_);
  }
}

std::string Path::str() const {
  std::string out;
  append_to(out);
  return out;
}

namespace {

// " at byte 57 (line 3, column 12)"
std::string where(std::string_view json, size_t offset) {
  const LineColumn lc = line_column(json, offset);
  return " at byte " + std::to_string(offset) + " (line " + std::to_string(lc.line) + ", column " +
         std::to_string(lc.column) + ")";
}

// The message for a failed parse: what kind of error (simdjson's code), and
// where and why (json_fault.h's scan, run only here, after the failure).
std::string parse_error_message(simdjson::error_code code, std::string_view json,
                                size_t max_depth) {
  switch (code) {
    case simdjson::EMPTY:
      return "empty body where JSON was expected";
    case simdjson::CAPACITY:
      return "JSON document too large";
    case simdjson::UTF8_ERROR:
      if (auto at = find_invalid_utf8(json)) return "invalid UTF-8 in JSON" + where(json, *at);
      return "invalid UTF-8 in JSON";
    default:
      break;
  }
  const auto fault = find_json_fault(json, max_depth);
  if (code == simdjson::DEPTH_ERROR)
    return "JSON nested too deeply" +
           (fault ? where(json, fault->offset) + ": " + fault->reason : "");
  if (fault) return "malformed JSON" + where(json, fault->offset) + ": " + fault->reason;
  return std::string("malformed JSON: ") + simdjson::error_message(code);
}

}  // namespace

Result<element> parse(simdjson::dom::parser& parser, std::string_view json) {
  auto r = parser.parse(json.data(), json.size(), /*realloc_if_needed=*/true);
  if (r.error()) [[unlikely]]
    return make_error(ErrorCode::parse_error,
                      parse_error_message(r.error(), json, parser.max_depth()), "$");
  remember_source(parser, json);
  return r.value_unsafe();
}

Error invalid(const Path& path, std::string message) {
  return make_error(ErrorCode::invalid_argument, std::move(message), path.str());
}

std::string_view type_name(element_type type) {
  static constexpr EnumName<element_type> kTypes[] = {
      {element_type::ARRAY, "array"},   {element_type::OBJECT, "object"},
      {element_type::INT64, "number"},  {element_type::UINT64, "number"},
      {element_type::DOUBLE, "number"}, {element_type::STRING, "string"},
      {element_type::BOOL, "boolean"},  {element_type::NULL_VALUE, "null"}};
  return name_of(kTypes, type, "unknown");
}

Error wrong_type(element e, const Path& path, std::string_view expected) {
  return invalid(path,
                 "expected " + std::string(expected) + ", got " + std::string(type_name(e.type())));
}

Result<int64_t> as_int64(element e, const Path& path) {
  auto r = e.get_int64();
  if (r.error()) {
    if (e.is_double()) {  // accept 1024.0, reject 1.5
      double d = e.get_double().value_unsafe();
      // Range check first: casting an out-of-range double is undefined behaviour.
      if (d >= -9.2e18 && d <= 9.2e18 && d == static_cast<double>(static_cast<int64_t>(d)))
        return static_cast<int64_t>(d);
    }
    return wrong_type(e, path, "integer");
  }
  return r.value_unsafe();
}
Result<double> as_double(element e, const Path& path) {
  auto r = e.get_double();
  if (r.error()) return wrong_type(e, path, "number");
  return r.value_unsafe();
}
Result<bool> as_bool(element e, const Path& path) {
  if (!e.is_bool()) return wrong_type(e, path, "boolean");
  return e.get_bool().value_unsafe();
}

Result<element> required(object obj, std::string_view key, const Path& path) {
  auto r = obj[key];
  if (r.error()) return invalid(path, "missing required field '" + std::string(key) + "'");
  return r.value_unsafe();
}

std::string to_json(element e) { return compact(e); }

}  // namespace toolwire::dialects::json
