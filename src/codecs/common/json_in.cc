#include "codecs/common/json_in.h"

#include "codecs/common/dom_json.h"
#include "codecs/common/source_text.h"

#include <charconv>

namespace toolwire::codec::json {

void Path::append_to(std::string& out) const {
  if (!parent_) {
    out.push_back('$');
    return;
  }
  parent_->append_to(out);
  if (index_ >= 0) {
    char buf[24];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, index_);
    out.push_back('[');
    out.append(buf, end);
    out.push_back(']');
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

Result<element> parse(simdjson::dom::parser& parser, std::string_view json) {
  auto r = parser.parse(json.data(), json.size(), /*realloc_if_needed=*/true);
  if (r.error()) {
    std::string what;
    switch (r.error()) {
      case simdjson::UTF8_ERROR: what = "invalid UTF-8 in JSON"; break;
      case simdjson::DEPTH_ERROR: what = "JSON nested too deeply"; break;
      case simdjson::EMPTY: what = "empty body where JSON was expected"; break;
      case simdjson::CAPACITY: what = "JSON document too large"; break;
      default: what = std::string("malformed JSON: ") + simdjson::error_message(r.error());
    }
    return make_error(ErrorCode::parse_error, std::move(what), "$");
  }
  remember_source(parser, json);
  return r.value_unsafe();
}

Error invalid(const Path& path, std::string message) {
  return make_error(ErrorCode::invalid_argument, std::move(message), path.str());
}

std::string_view type_name(element_type type) {
  switch (type) {
    case element_type::ARRAY: return "array";
    case element_type::OBJECT: return "object";
    case element_type::INT64:
    case element_type::UINT64:
    case element_type::DOUBLE: return "number";
    case element_type::STRING: return "string";
    case element_type::BOOL: return "boolean";
    case element_type::NULL_VALUE: return "null";
  }
  return "unknown";
}

Error wrong_type(element e, const Path& path, std::string_view expected) {
  return invalid(path, "expected " + std::string(expected) + ", got " + std::string(type_name(e.type())));
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

}  // namespace toolwire::codec::json
