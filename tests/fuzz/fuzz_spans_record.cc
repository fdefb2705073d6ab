// libFuzzer: a trace store row's spans record (untrusted: the SQLite file is
// on disk, where anything may change it). Any bytes decode into spans or give
// an error; nothing crashes or reads past the end. Spans that decoded are
// written again and must decode to the same JSON, and that JSON must parse
// (when its strings are UTF-8: the record keeps a string's bytes as they
// were given, as spans_json() writes them).
#include <simdjson.h>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "telemetry/store/spans_record.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace toolwire::telemetry;
  std::string_view in(reinterpret_cast<const char*>(data), size);
  auto json = spans_record_json(in);
  if (!json) return 0;
  auto decoded = decode_spans_record(in);
  if (!decoded) std::abort();
  std::string again;
  append_spans_record(decoded->spans, again);
  auto json_again = spans_record_json(again);
  if (!json_again || *json_again != *json) std::abort();
  if (simdjson::validate_utf8(json->data(), json->size()) && !nlohmann::json::accept(*json))
    std::abort();
  return 0;
}
