#include "dialects/common/wrapped_arguments.h"

#include <string>

#include "dialects/common/style.h"
#include "toolwire/core/json_valid.h"

namespace toolwire::dialects {
namespace {

std::string_view trim(std::string_view s) {
  auto ws = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  while (!s.empty() && ws(s.front())) s.remove_prefix(1);
  while (!s.empty() && ws(s.back())) s.remove_suffix(1);
  return s;
}

}  // namespace

void write_wrapped_arguments(std::string_view arguments, bool valid, bool raw_verified,
                             bool object_only, const json::Path& path, JsonWriter& w,
                             Warnings& warnings) {
  std::string_view args = trim(arguments);
  if (valid && args.empty()) {
    w.raw("{}");
    return;
  }
  if (valid && (!object_only || args.front() == '{') && (raw_verified || is_valid_json(args))) {
    w.raw(args);
    return;
  }
  w.begin_object();
  w.field(kInvalidArgumentsKey, arguments);
  w.end_object();
  warn(warnings, "invalid_arguments_wrapped", path,
       std::string("tool call arguments are not ") +
           (object_only ? "a JSON object" : "valid JSON") + "; sent as {\"" +
           std::string(kInvalidArgumentsKey) + "\": <text>}");
}

}  // namespace toolwire::dialects
