#include "toolwire/core/json_valid.h"

#include <simdjson.h>

namespace toolwire {

bool is_valid_json(std::string_view text) {
  thread_local simdjson::dom::parser parser;
  return !parser.parse(text.data(), text.size(), /*realloc_if_needed=*/true).error();
}

}  // namespace toolwire
