#include "toolwire/ir/accumulator.h"

#include <simdjson.h>

#include <type_traits>

#include "toolwire/core/json_valid.h"
#include "toolwire/core/json_writer.h"

namespace toolwire::ir {
namespace {

// Where the whole Chat response keeps its logprobs: a placed member of
// `choices[0]` (src/dialects/common/placed_member.h: [kPlacedFixed = 3, 0, 0,
// value]).
constexpr std::string_view kChatLogprobsKey = "$.choices[0].logprobs";

void take_source(Response& r, const std::string& dialect) {
  if (r.source_dialect.empty() && !dialect.empty()) r.source_dialect = dialect;
}

// An event's raw extras, as the whole response keeps them: a later value of
// a key (a usage detail of a later usage event) replaces the earlier one.
void add_extras(Response& r, const StreamExtras& x) {
  take_source(r, x.dialect);
  for (const auto& e : x.extra) {
    std::erase_if(r.extra, [&](const ExtraField& y) { return y.key == e.key; });
    r.extra.push_back(e);
  }
}

// Appends the entries of `list` (a JSON array, or null) to `into`, comma-separated.
void append_entries(simdjson::dom::element list, std::string& into) {
  simdjson::dom::array arr;
  if (list.get_array().get(arr)) return;
  for (simdjson::dom::element entry : arr) {
    if (!into.empty()) into.push_back(',');
    into += simdjson::minify(entry);
  }
}

}  // namespace

void StreamAccumulator::add(const StreamEvent& event) {
  std::visit(
      [this](const auto& e) {
        using T = std::decay_t<decltype(e)>;
        auto& parts = response_.parts;
        if constexpr (std::is_same_v<T, MessageStart>) {
          response_.id = e.id;
          response_.model = e.model;
          response_.created = e.created;
          add_extras(response_, e.extras);
        } else if constexpr (std::is_same_v<T, TextDelta>) {
          if (!e.logprobs.empty()) [[unlikely]]
            add_logprobs(e);
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
          if (e.text.empty() && !e.logprobs.empty()) return;  // logprobs alone, kept above
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
          add_extras(response_, e.extras);
        } else if constexpr (std::is_same_v<T, Finish>) {
          response_.finish = e.reason;
          add_extras(response_, e.extras);
          if (!e.stop_sequence.empty()) {  // as Anthropic's whole response keeps it
            StreamExtras x;
            x.extra.push_back(ExtraField{"stop_sequence", {}});
            JsonWriter::append_escaped(x.extra.back().raw_json, e.stop_sequence);
            add_extras(response_, x);
          }
          finished_ = true;
        } else if constexpr (std::is_same_v<T, ErrorEvent>) {
          error_ = e;
        }
      },
      event);
}

// A chunk's Chat logprobs ({"content":[...],"refusal":[...]}): their entries
// join the answer's, as `choices[0].logprobs` of the whole response holds
// them. (Only Chat's stream decoder sets TextDelta.logprobs.)
void StreamAccumulator::add_logprobs(const TextDelta& e) {
  take_source(response_, e.dialect);
  thread_local simdjson::dom::parser parser;
  simdjson::dom::object obj;
  if (parser.parse(e.logprobs).get_object().get(obj)) return;  // the decoder checked it
  has_logprobs_ = true;
  for (auto [key, value] : obj) {
    if (key == "content") append_entries(value, logprobs_content_);
    if (key == "refusal") append_entries(value, logprobs_refusal_);
  }
}

Response StreamAccumulator::take() && {
  if (has_logprobs_) {
    std::string raw = "[3,0,0,{\"content\":";  // placed_member.h, kPlacedFixed
    for (const std::string* list : {&logprobs_content_, &logprobs_refusal_}) {
      if (list == &logprobs_refusal_) raw += ",\"refusal\":";
      raw += list->empty() ? "null" : "[" + *list + "]";
    }
    raw += "}]";
    StreamExtras x;
    x.extra.push_back(ExtraField{std::string(kChatLogprobsKey), std::move(raw)});
    add_extras(response_, x);
  }
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
