#include "toolwire/ir/accumulator.h"

#include <type_traits>

#include "toolwire/core/json_valid.h"
#include "toolwire/core/json_writer.h"

namespace toolwire::ir {

void StreamAccumulator::add(const StreamEvent& event) {
  std::visit(
      [this](const auto& e) {
        using T = std::decay_t<decltype(e)>;
        auto& parts = response_.parts;
        if constexpr (std::is_same_v<T, MessageStart>) {
          response_.id = e.id;
          response_.model = e.model;
          response_.created = e.created;
        } else if constexpr (std::is_same_v<T, TextDelta>) {
          if (e.refusal) [[unlikely]] {
            // A refusal is the dialect's refusal block, as the whole
            // response's decoder keeps it: {"type":"refusal","refusal":text}.
            if (open_ != Open::refusal) {
              parts.push_back(UnknownPart{e.dialect, "refusal", {}});
              refusals_.push_back({parts.size() - 1, {}});
              open_ = Open::refusal;
            }
            refusals_.back().second += e.text;
            return;
          }
          if (e.text.empty() && !e.logprobs.empty()) return;  // logprobs alone: not kept
          if (open_ != Open::text) {
            parts.push_back(TextPart{});
            open_ = Open::text;
          }
          std::get<TextPart>(parts.back()).text += e.text;
        } else if constexpr (std::is_same_v<T, ThinkingDelta>) {
          if (open_ != Open::thinking ||
              std::get<ThinkingPart>(parts.back()).redacted != e.redacted) {
            ThinkingPart t;
            t.redacted = e.redacted;
            parts.push_back(std::move(t));
            open_ = Open::thinking;
          }
          auto& t = std::get<ThinkingPart>(parts.back());
          (e.redacted ? t.redacted_data : t.text) += e.text;
          t.signature += e.signature;
          if (!e.item_id.empty()) t.item_id = e.item_id;
          t.encrypted_content += e.encrypted_content;
        } else if constexpr (std::is_same_v<T, ToolCallStart>) {
          open_ = Open::none;
          call_part_[e.index] = parts.size();
          parts.push_back(ToolCallPart{e.id, e.name, {}, true, e.signature});
        } else if constexpr (std::is_same_v<T, ToolCallDelta>) {
          open_ = Open::none;
          auto it = call_part_.find(e.index);
          if (it == call_part_.end()) {  // a delta before its start: make the call
            it = call_part_.emplace(e.index, parts.size()).first;
            parts.push_back(ToolCallPart{});
          }
          std::get<ToolCallPart>(parts[it->second]).arguments += e.fragment;
        } else if constexpr (std::is_same_v<T, ToolCallEnd>) {
          open_ = Open::none;
        } else if constexpr (std::is_same_v<T, UsageEvent>) {
          auto& u = response_.usage;
          if (e.usage.input_tokens) u.input_tokens = e.usage.input_tokens;
          if (e.usage.output_tokens) u.output_tokens = e.usage.output_tokens;
          if (e.usage.cache_read_tokens) u.cache_read_tokens = e.usage.cache_read_tokens;
          if (e.usage.cache_write_tokens) u.cache_write_tokens = e.usage.cache_write_tokens;
          if (e.usage.estimated) u.estimated = true;
        } else if constexpr (std::is_same_v<T, Finish>) {
          response_.finish = e.reason;
          finished_ = true;
        } else if constexpr (std::is_same_v<T, ErrorEvent>) {
          error_ = e;
        }
      },
      event);
}

Response StreamAccumulator::take() && {
  for (auto& [at, text] : refusals_) {
    std::string raw;
    JsonWriter w(raw);
    w.begin_object();
    w.field("type", "refusal");
    w.field("refusal", text);
    w.end_object();
    std::get<UnknownPart>(response_.parts[at]).raw_json = std::move(raw);
  }
  for (auto& part : response_.parts) {
    if (auto* call = std::get_if<ToolCallPart>(&part)) {
      if (call->arguments.empty()) call->arguments = "{}";  // a call with no arguments
      call->arguments_valid = is_valid_json(call->arguments);
    }
  }
  return std::move(response_);
}

}  // namespace toolwire::ir
