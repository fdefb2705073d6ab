#include "dialects/common/metadata_member.h"

#include <simdjson.h>

#include <string>

#include "dialects/common/json_in.h"
#include "dialects/common/style.h"

namespace toolwire::dialects {

void write_metadata_member(JsonWriter& w, std::string_view metadata, std::string_view member,
                           std::string_view why, Warnings& warnings) {
  thread_local simdjson::dom::parser parser;
  simdjson::dom::object obj;
  const json::Path root;
  const json::Path path(root, "metadata");
  if (parser.parse(metadata.data(), metadata.size(), true).get_object().get(obj)) {
    warn(warnings, "dropped_metadata", path, "metadata is not a JSON object; dropped");
    return;
  }
  std::string_view kept;
  bool found = false;
  for (auto field : obj) {
    std::string_view value;
    if (field.key == member && !field.value.get_string().get(value)) {
      kept = value;
      found = true;
      continue;
    }
    warn(warnings, "dropped_metadata", json::Path(path, field.key),
         "metadata member '" + std::string(field.key) + "' dropped: " + std::string(why));
  }
  if (!found) return;
  w.key("metadata");
  w.begin_object();
  w.field(member, kept);
  w.end_object();
}

}  // namespace toolwire::dialects
