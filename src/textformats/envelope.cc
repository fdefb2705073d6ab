// envelope — the JSON-envelope turn protocol: the whole answer is
//   {"toolCalls": [{"type": "get_weather", "id": "c1", "operation": "look it up",
//                   "parameters": {"city": "Paris"}, "priority": 0}]}
// code fences optional. Each element is a call: name = type, arguments =
// parameters, id kept. A bad element is reported alone (the others count);
// an answer that is not such JSON is one error (prose stays text). Prose
// before a fenced envelope is text. parse_envelope
// (envelope_turn.h) also keeps each call's priority and operation.
#include "textformats/families.h"
#include "textformats/json_answer.h"
#include "textformats/json_calls.h"
#include "toolwire/textformats/envelope_turn.h"
#include "toolwire/textformats/summary.h"

namespace toolwire::textformats {

namespace {

// What the IR events do not carry, one entry per call in call-index order.
struct CallMeta {
  std::string operation;
  double priority = 0;
};

class Envelope final : public JsonAnswer {
 public:
  explicit Envelope(const ToolSet* tools, std::vector<CallMeta>* meta = nullptr)
      : JsonAnswer(tools), meta_(meta) {}

 private:
  bool on_value(simdjson::dom::element v, std::string_view) override {
    simdjson::dom::array calls;
    if (!v.is_object() || v["toolCalls"].get_array().get(calls)) {
      error("the answer is not an envelope: expected {\"toolCalls\": [...]}");
      return true;
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
      CallMeta m;
      simdjson::dom::element f;
      if (e.is_object() && !e["priority"].get(f) && !f.is_null()) {
        if (f.get_double().get(m.priority)) {  // any JSON number reads as a double
          error(where + ": priority is not a number");
          continue;
        }
      }
      std::string_view op;
      if (e.is_object() && !e["operation"].get_string().get(op)) m.operation.assign(op);
      auto c = json_call(e, scratch_, keys);
      if (!c) {
        error(where + ": " + c.error().message);
        continue;
      }
      if (meta_) meta_->push_back(std::move(m));
      whole_call(*c);
    }
    return true;
  }

  void on_prose() override { error("the answer is not JSON: expected {\"toolCalls\": [...]}"); }
  void on_broken(std::string_view, bool cut_off) override {
    error(cut_off ? "the output ended inside the envelope" : "the envelope is not valid JSON");
  }

  std::vector<CallMeta>* meta_;
};

}  // namespace

ParserPtr make_envelope(const ToolSet* tools) { return std::make_unique<Envelope>(tools); }

EnvelopeAnswer parse_envelope(std::string_view text, const ToolSet* tools) {
  std::vector<CallMeta> meta;
  Envelope parser(tools, &meta);
  ParseOutput out;
  parser.feed(text, out);
  parser.finish(out);
  ParseSummary s = summarize(out);
  EnvelopeAnswer a;
  a.text = std::move(s.content);
  a.errors = std::move(s.errors);
  for (auto& c : s.tool_calls) {
    if (!c.complete) continue;  // its error is in `errors`
    EnvelopeCall call;
    call.index = c.index;
    call.id = std::move(c.id);
    call.name = std::move(c.name);
    call.arguments = std::move(c.arguments);
    if (c.index >= 0 && static_cast<size_t>(c.index) < meta.size()) {
      call.operation = std::move(meta[c.index].operation);
      call.priority = meta[c.index].priority;
    }
    a.calls.push_back(std::move(call));
  }
  return a;
}

}  // namespace toolwire::textformats
