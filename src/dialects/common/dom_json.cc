#include "dialects/common/dom_json.h"

#include <charconv>
#include <cmath>

#include "dialects/common/source_text.h"
#include "toolwire/core/json_writer.h"

namespace toolwire::dialects::json {

namespace {

template <class N>
void append_number(std::string& out, N n) {
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, n);
  out.append(buf, end);
}

void append_double(std::string& out, double d) {
  if (!std::isfinite(d)) {  // cannot come from a parsed document; stay valid JSON
    out.append("null");
    return;
  }
  char buf[40];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, d);
  bool integral_looking = true;
  for (const char* p = buf; p < end; ++p)
    if (*p == '.' || *p == 'e' || *p == 'E') integral_looking = false;
  out.append(buf, end);
  if (integral_looking) out.append(".0");  // keep it a JSON double
}

void append_dom(std::string& out, simdjson::dom::element e) {
  using simdjson::dom::element_type;
  switch (e.type()) {
    case element_type::OBJECT: {
      out.push_back('{');
      bool first = true;
      const simdjson::dom::object obj =
          e.get_object().value_unsafe();  // a local: the result is a temporary
      for (auto field : obj) {
        if (!first) out.push_back(',');
        first = false;
        JsonWriter::append_escaped(out, field.key);
        out.push_back(':');
        append_dom(out, field.value);
      }
      out.push_back('}');
      return;
    }
    case element_type::ARRAY: {
      out.push_back('[');
      bool first = true;
      const simdjson::dom::array arr = e.get_array().value_unsafe();
      for (auto item : arr) {
        if (!first) out.push_back(',');
        first = false;
        append_dom(out, item);
      }
      out.push_back(']');
      return;
    }
    case element_type::STRING:
      JsonWriter::append_escaped(out, e.get_string().value_unsafe());
      return;
    case element_type::INT64:
      append_number(out, e.get_int64().value_unsafe());
      return;
    case element_type::UINT64:
      append_number(out, e.get_uint64().value_unsafe());
      return;
    case element_type::DOUBLE:
      append_double(out, e.get_double().value_unsafe());
      return;
    case element_type::BOOL:
      out.append(e.get_bool().value_unsafe() ? "true" : "false");
      return;
    case element_type::NULL_VALUE:
      out.append("null");
      return;
  }
}

}  // namespace

void append_compact(std::string& out, simdjson::dom::element e) {
  if (append_source(out, e)) return;
  append_dom(out, e);
}

}  // namespace toolwire::dialects::json
