#include "textprovider/text_turn.h"

#include <cstdio>
#include <random>

namespace toolwire::textprovider {

void TextTurn::upstream(const ir::StreamEvent& e) {
  if (auto* t = std::get_if<ir::TextDelta>(&e)) return text(t->text);
  if (auto* f = std::get_if<ir::Finish>(&e)) {
    finish_ = *f;
    return;
  }
  if (std::holds_alternative<ir::ToolCallStart>(e) ||
      std::holds_alternative<ir::ToolCallDelta>(e) || std::holds_alternative<ir::ToolCallEnd>(e))
    return;
  emit(e);
}

void TextTurn::text(std::string_view s) {
  parser_->feed(s, out_);
  drain();
}

void TextTurn::finish() {
  parser_->finish(out_);
  drain();
  ir::Finish f = finish_.value_or(ir::Finish{});
  if (next_index_ > 0 && f.reason.kind == ir::FinishReason::Kind::stop)
    f.reason = ir::FinishReason{ir::FinishReason::Kind::tool_calls, "tool_calls"};
  emit(f);
}

void TextTurn::drain() {
  for (auto& e : out_.events) {
    if (auto* s = std::get_if<ir::ToolCallStart>(&e)) {
      held_[s->index].push_back(std::move(e));
    } else if (auto* d = std::get_if<ir::ToolCallDelta>(&e)) {
      held_[d->index].push_back(std::move(e));
    } else if (auto* n = std::get_if<ir::ToolCallEnd>(&e)) {
      auto it = held_.find(n->index);
      if (it == held_.end()) continue;
      const int index = next_index_++;
      for (auto& h : it->second) {
        if (auto* s = std::get_if<ir::ToolCallStart>(&h)) {
          s->index = index;
          // Clients answer a call by its id: formats that carry none get one.
          if (s->id.empty()) s->id = id_prefix() + std::to_string(index);
        }
        if (auto* d = std::get_if<ir::ToolCallDelta>(&h)) d->index = index;
        emit(h);
      }
      emit(ir::ToolCallEnd{index});
      held_.erase(it);
    } else {
      emit(e);
    }
  }
  out_.events.clear();
  for (auto& err : out_.errors) {
    // A call that failed never ends: its held events go.
    if (err.call_index >= 0) held_.erase(err.call_index);
    warnings_.push_back({"tool_format", "", std::move(err.message)});
  }
  out_.errors.clear();
}

const std::string& TextTurn::id_prefix() {
  if (id_prefix_.empty()) {
    static thread_local std::mt19937_64 rng{std::random_device{}()};
    char buf[32];
    std::snprintf(buf, sizeof buf, "call_%016llx_", static_cast<unsigned long long>(rng()));
    id_prefix_ = buf;
  }
  return id_prefix_;
}

void TextTurn::emit(const ir::StreamEvent& e) {
  acc_.add(e);
  if (on_event_) on_event_(e);
}

}  // namespace toolwire::textprovider
