// The way back of the forced-tool technique (forced_output.h).
#include "dialects/common/forced_output.h"

#include <utility>

namespace toolwire::dialects {

using Kind = ir::FinishReason::Kind;

void unwrap_forced_output(ir::Response& response) {
  bool unwrapped = false, calls = false;
  for (auto& p : response.parts) {
    auto* c = std::get_if<ir::ToolCallPart>(&p);
    if (!c) continue;
    if (c->name != ir::kForcedOutputTool) {
      calls = true;
      continue;
    }
    std::string text = std::move(c->arguments);
    p = ir::TextPart{std::move(text)};
    unwrapped = true;
  }
  if (unwrapped && !calls && response.finish.kind == Kind::tool_calls)
    response.finish = ir::FinishReason{Kind::stop, ""};
}

void ForcedOutputUnwrapper::apply(std::vector<ir::StreamEvent>& events, size_t from) {
  size_t out = from;
  for (size_t i = from; i < events.size(); ++i) {
    ir::StreamEvent& e = events[i];
    bool keep = true;
    // Renumbers a later call's index over the answer tool's; false: the
    // event belongs to the answer tool.
    auto other = [&](int& index) {
      if (forced_index_ < 0 || index < forced_index_) return true;
      if (index == forced_index_) return false;
      --index;
      return true;
    };
    if (auto* s = std::get_if<ir::ToolCallStart>(&e)) {
      if (forced_index_ < 0 && s->name == ir::kForcedOutputTool) {
        forced_index_ = s->index;
        keep = false;
      } else {
        other(s->index);
        other_calls_ = true;
      }
    } else if (auto* d = std::get_if<ir::ToolCallDelta>(&e)) {
      if (!other(d->index)) e = ir::TextDelta{std::move(d->fragment)};
    } else if (auto* end = std::get_if<ir::ToolCallEnd>(&e)) {
      keep = other(end->index);
    } else if (auto* f = std::get_if<ir::Finish>(&e)) {
      if (forced_index_ >= 0 && !other_calls_ && f->reason.kind == Kind::tool_calls)
        f->reason = ir::FinishReason{Kind::stop, ""};
    }
    if (!keep) continue;
    if (out != i) events[out] = std::move(events[i]);
    ++out;
  }
  events.resize(out);
}

namespace {

class UnwrappingDecoder final : public StreamDecoder {
 public:
  explicit UnwrappingDecoder(std::unique_ptr<StreamDecoder> inner) : inner_(std::move(inner)) {}
  Status feed(std::string_view bytes, std::vector<ir::StreamEvent>& out) override {
    const size_t from = out.size();
    Status s = inner_->feed(bytes, out);
    unwrapper_.apply(out, from);
    return s;
  }
  Status finish(std::vector<ir::StreamEvent>& out) override {
    const size_t from = out.size();
    Status s = inner_->finish(out);
    unwrapper_.apply(out, from);
    return s;
  }
  const Warnings& warnings() const override { return inner_->warnings(); }

 private:
  std::unique_ptr<StreamDecoder> inner_;
  ForcedOutputUnwrapper unwrapper_;
};

}  // namespace

std::unique_ptr<StreamDecoder> unwrapping(std::unique_ptr<StreamDecoder> inner) {
  return std::make_unique<UnwrappingDecoder>(std::move(inner));
}

}  // namespace toolwire::dialects
