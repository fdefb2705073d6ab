// Families where the whole answer is one JSON value, code fences optional
// (generic_json, envelope). The value is kept until it closes, then on_value
// turns it into events; what follows it is text.
#pragma once

#include "textformats/parser_base.h"

namespace toolwire::textformats {

class JsonAnswer : public ParserBase {
 protected:
  explicit JsonAnswer(const ToolSet* tools) : ParserBase(tools) {}

  virtual void on_value(simdjson::dom::element value, std::string_view source) = 0;
  // The answer is not JSON (it opened with neither `{` nor a fence).
  virtual void on_prose() = 0;
  // The answer opened like JSON but is not: invalid bytes, a parse error, or
  // the end of output inside it.
  virtual void on_broken(std::string_view source, bool cut_off) = 0;

  // Set by on_prose / on_broken: what follows is dropped, not text.
  bool drop_text_ = false;

 private:
  enum class St { start, fence, json, close_fence, text };
  void body(bool final) override;

  St st_ = St::start;
  bool fenced_ = false;
};

}  // namespace toolwire::textformats
