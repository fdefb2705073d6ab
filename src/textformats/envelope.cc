// envelope — the JSON-envelope turn protocol: the whole answer is
//   {"toolCalls": [{"type": "get_weather", "id": "c1", "operation": "look it up",
//                   "parameters": {"city": "Paris"}, "priority": 0}]}
// code fences optional. Each element is a call: name = type, arguments =
// parameters, id kept. A bad element is reported alone (the others count);
// an answer that is not such JSON is one error and no text.
#include "textformats/families.h"
#include "textformats/json_answer.h"
#include "textformats/json_calls.h"

namespace toolwire::textformats {

namespace {

class Envelope final : public JsonAnswer {
 public:
  explicit Envelope(const ToolSet* tools) : JsonAnswer(tools) {}

 private:
  void on_value(simdjson::dom::element v, std::string_view) override {
    simdjson::dom::array calls;
    if (!v.is_object() || v["toolCalls"].get_array().get(calls)) {
      error("the answer is not an envelope: expected {\"toolCalls\": [...]}");
      drop_text_ = true;
      return;
    }
    static const CallKeys keys{{"type"}, {"parameters"}, {"id"}};
    size_t i = 0;
    for (simdjson::dom::element e : calls) {
      std::string where = "toolCalls[" + std::to_string(i++) + "]";
      simdjson::dom::element p;
      if (e.is_object() && !e["parameters"].get(p) && !p.is_object() && !p.is_null()) {
        error(where + ": parameters is not an object");
        continue;
      }
      auto c = json_call(e, scratch_, keys);
      if (!c)
        error(where + ": " + c.error().message);
      else
        whole_call(c->name, c->id, c->arguments);
    }
  }

  void on_prose() override {
    error("the answer is not JSON: expected {\"toolCalls\": [...]}");
    drop_text_ = true;
  }
  void on_broken(std::string_view, bool cut_off) override {
    error(cut_off ? "the output ended inside the envelope" : "the envelope is not valid JSON");
    drop_text_ = true;
  }
};

}  // namespace

ParserPtr make_envelope(const ToolSet* tools) { return std::make_unique<Envelope>(tools); }

}  // namespace toolwire::textformats
