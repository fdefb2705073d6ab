// generic_json — llama.cpp's generic format, for models prompted to answer in JSON:
//   {"tool_call": {"name": "get_weather", "arguments": {"city": "Paris"}}}
//   {"tool_calls": [{"name": ..., "arguments": ...}, ...]}
//   {"response": "plain answer"}
//   {"name": "get_weather", "arguments": {...}}
// with or without a ```json fence, also after prose. An answer that is not
// JSON is text; JSON that is none of these is text too (the model ignored the
// format).
#include "textformats/families.h"
#include "textformats/json_answer.h"
#include "textformats/json_calls.h"

namespace toolwire::textformats {

namespace {

class GenericJson final : public JsonAnswer {
 public:
  explicit GenericJson(const ToolSet* tools) : JsonAnswer(tools) {}

 private:
  bool on_value(simdjson::dom::element v, std::string_view) override {
    simdjson::dom::element x;
    if (!v["tool_calls"].get(x)) {
      simdjson::dom::array calls;
      if (x.get_array().get(calls)) {
        error("tool_calls is not a list");
        return true;
      }
      size_t i = 0;
      for (simdjson::dom::element e : calls)
        json_object_call(e, "tool_calls[" + std::to_string(i++) + "]");
      return true;
    }
    if (!v["tool_call"].get(x)) {
      json_object_call(x, "tool_call");
      return true;
    }
    if (!v["response"].get(x)) {
      std::string_view s;
      if (!x.get_string().get(s))
        text(s);
      else
        text(simdjson::to_string(x));
      return true;
    }
    if (!has_string_key(v, {"name"})) return false;  // some other JSON: the answer itself
    json_object_call(v, "call");
    return true;
  }

  void on_prose() override {}
  void on_broken(std::string_view source, bool cut_off) override {
    if (cut_off)
      error("the output ended inside the JSON answer");
    else
      text(source);
  }
};

}  // namespace

ParserPtr make_generic_json(const ToolSet* tools) { return std::make_unique<GenericJson>(tools); }

}  // namespace toolwire::textformats
