// Families where the answer is one JSON value, code fences optional
// (generic_json, envelope). The value is kept until it closes, then on_value
// turns it into events; what follows it is text. Prose before the value is
// text, and a fenced value after it ("Sure:\n```json\n{...}\n```") is still
// the answer.
#pragma once

#include "textformats/parser_base.h"

namespace toolwire::textformats {

namespace json_answer {
enum class St { start, prose, json };
}

class JsonAnswer : public StateParser<json_answer::St> {
 protected:
  explicit JsonAnswer(const ToolSet* tools) : StateParser(tools) {}

  // The answer; false when it is some other JSON (then it is text).
  virtual bool on_value(simdjson::dom::element value, std::string_view source) = 0;
  // The output ended with no JSON value in it (prose only).
  virtual void on_prose() = 0;
  // The answer opened like JSON but is not: invalid bytes, a parse error, or
  // the end of output inside it.
  virtual void on_broken(std::string_view source, bool cut_off) = 0;

 private:
  bool step(bool final) override;

  bool answered_ = false;  // a value was read
};

}  // namespace toolwire::textformats
