#include "textformats/json_calls.h"

#include "textformats/markers.h"

namespace toolwire::textformats {

bool has_string_key(simdjson::dom::element v, std::initializer_list<std::string_view> keys) {
  simdjson::dom::object o;
  if (v.get_object().get(o)) return false;
  for (std::string_view k : keys) {
    simdjson::dom::element e;
    if (!o.at_key(k).get(e) && e.is_string()) return true;
  }
  return false;
}

Result<JsonCall> json_call(simdjson::dom::element obj, simdjson::dom::parser& scratch,
                           const CallKeys& keys) {
  simdjson::dom::object o;
  if (obj.get_object().get(o))
    return make_error(ErrorCode::invalid_argument, "a call is not an object");
  JsonCall call;
  bool named = false;
  for (std::string_view k : keys.name) {
    if (k.empty()) continue;
    std::string_view name;
    if (!o.at_key(k).get_string().get(name)) {
      call.name.assign(name);
      named = true;
      break;
    }
  }
  if (!named || call.name.empty())
    return make_error(ErrorCode::invalid_argument, "a call has no name");
  for (std::string_view k : keys.id) {
    if (k.empty()) continue;
    simdjson::dom::element id;
    if (o.at_key(k).get(id)) continue;
    std::string_view s;
    if (!id.get_string().get(s))
      call.id.assign(s);
    else if (id.is_int64() || id.is_uint64())
      call.id = simdjson::to_string(id);
    break;
  }
  simdjson::dom::element args;
  bool found = false;
  for (std::string_view k : keys.arguments) {
    if (k.empty()) continue;
    if (!o.at_key(k).get(args)) {
      found = true;
      break;
    }
  }
  if (!found || args.is_null()) {
    call.arguments = "{}";
    return call;
  }
  std::string_view text;
  if (!args.get_string().get(text)) {  // arguments as a JSON string
    if (trim(text).empty()) {
      call.arguments = "{}";
      return call;
    }
    simdjson::dom::element inner;
    if (scratch.parse(text.data(), text.size()).get(inner) || !inner.is_object())
      return make_error(ErrorCode::invalid_argument,
                        call.name + ": the arguments string is not a JSON object");
    call.arguments = simdjson::to_string(inner);
    return call;
  }
  if (!args.is_object())
    return make_error(ErrorCode::invalid_argument, call.name + ": the arguments are not an object");
  call.arguments = simdjson::to_string(args);
  return call;
}

}  // namespace toolwire::textformats
