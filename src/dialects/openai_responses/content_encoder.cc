// IR assistant parts → Responses items, shared by the request encoder (input
// items, no ids) and the response encoder (output items with ids and status).
#include "dialects/openai_responses/wire.h"

namespace toolwire::dialects::openai_responses {
namespace {

template <class S>
struct ItemWriter {
  using Parts = typename S::template Vector<ir::BasicPart<S>>;
  JsonWriter& w;
  const ItemStyle& style;
  size_t& next;
  Warnings& warnings;

  // A run of text (and this dialect's content parts) as one message item.
  void message(const Parts& parts, size_t begin, size_t end) {
    w.begin_object();
    if (style.output) w.field("id", item_id("msg", style.id_base, next++));
    w.field("type", "message");
    if (style.output) w.field("status", "completed");
    w.field("role", "assistant");
    w.key("content");
    w.begin_array();
    for (size_t i = begin; i < end; ++i) {
      if (auto* t = std::get_if<ir::BasicTextPart<S>>(&parts[i])) {
        w.begin_object();
        w.field("type", "output_text");
        w.field("text", t->text);
        w.key("annotations");
        w.begin_array();
        w.end_array();
        w.end_object();
      } else if (auto* u = std::get_if<ir::BasicUnknownPart<S>>(&parts[i]);
                 u && u->dialect == kDialect) {  // another's was dropped, with a warning
        w.raw(u->raw_json);
      }
    }
    w.end_array();
    w.end_object();
  }

  // Consecutive thinking parts of one item id as one reasoning item; returns
  // the index after them.
  size_t reasoning(const Parts& parts, size_t i) {
    const auto& first = std::get<ir::BasicThinkingPart<S>>(parts[i]);
    size_t end = i + 1;
    while (!first.item_id.empty() && end < parts.size()) {
      auto* t = std::get_if<ir::BasicThinkingPart<S>>(&parts[end]);
      if (!t || t->redacted || t->item_id != first.item_id || !t->encrypted_content.empty()) break;
      ++end;
    }
    for (size_t k = i; k < end; ++k)
      if (!std::get<ir::BasicThinkingPart<S>>(parts[k]).signature.empty()) {
        warn(warnings, "dropped_thinking_signature", style.path,
             "a reasoning item carries no thinking signature");
        break;
      }
    if (first.item_id.empty() && !style.output) {
      // The API takes reasoning back only as the item it produced (its id).
      warn(warnings, "dropped_reasoning_without_id", style.path,
           "reasoning from another dialect has no Responses item id and cannot be sent back");
      return end;
    }
    w.begin_object();
    w.field("type", "reasoning");
    // Every output item takes a number, kept id or not, so that the ids
    // generated after it are the same when the answer is encoded again.
    if (first.item_id.empty()) {
      w.field("id", item_id("rs", style.id_base, next++));
    } else {
      w.field("id", first.item_id);
      if (style.output) ++next;
    }
    w.key("summary");
    w.begin_array();
    const bool only_empty = end == i + 1 && first.text.empty();
    for (size_t k = i; k < end && !only_empty; ++k) {
      w.begin_object();
      w.field("type", "summary_text");
      w.field("text", std::get<ir::BasicThinkingPart<S>>(parts[k]).text);
      w.end_object();
    }
    w.end_array();
    if (!first.encrypted_content.empty()) w.field("encrypted_content", first.encrypted_content);
    w.end_object();
    return end;
  }

  void call(const ir::BasicToolCallPart<S>& c) {
    if (!c.signature.empty())
      warn(warnings, "dropped_call_signature", style.path,
           "a function_call item carries no provider signature; it was dropped");
    w.begin_object();
    w.field("type", "function_call");
    if (style.output) w.field("id", item_id("fc", style.id_base, next++));
    w.field("call_id", c.id);
    w.field("name", c.name);
    w.field("arguments", c.arguments);
    if (style.output) w.field("status", "completed");
    w.end_object();
  }

  void write(const Parts& parts) {
    size_t run = 0, i = 0;
    bool in_run = false;
    auto flush = [&](size_t at) {
      if (in_run) message(parts, run, at);
      in_run = false;
    };
    while (i < parts.size()) {
      const auto& p = parts[i];
      if (auto* t = std::get_if<ir::BasicTextPart<S>>(&p)) {
        if (!t->text.empty() && !in_run) run = i, in_run = true;
        ++i;
        continue;
      }
      if (auto* u = std::get_if<ir::BasicUnknownPart<S>>(&p)) {
        if (u->dialect != kDialect) {
          warn(warnings, "dropped_unknown_part", style.path,
               "dropped a '" + std::string(u->type) + "' block from " + std::string(u->dialect));
        } else if (!is_item_part(u->type)) {
          if (!in_run) run = i, in_run = true;
        } else {
          flush(i);
          w.raw(u->raw_json);
        }
        ++i;
        continue;
      }
      flush(i);
      if (auto* th = std::get_if<ir::BasicThinkingPart<S>>(&p)) {
        if (th->redacted) {
          warn(warnings, "dropped_redacted_thinking", style.path,
               "redacted thinking cannot be expressed in OpenAI Responses");
          ++i;
          continue;
        }
        i = reasoning(parts, i);
        continue;
      }
      if (auto* c = std::get_if<ir::BasicToolCallPart<S>>(&p))
        call(*c);
      else
        warn(warnings, "dropped_part", style.path, "the assistant's turn cannot hold this part");
      ++i;
    }
    flush(parts.size());
  }
};

}  // namespace

template <class S>
void write_model_items(JsonWriter& w, const typename S::template Vector<ir::BasicPart<S>>& parts,
                       const ItemStyle& style, size_t& next, Warnings& warnings) {
  ItemWriter<S>{w, style, next, warnings}.write(parts);
}

template void write_model_items<ir::Owning>(JsonWriter&, const std::vector<ir::Part>&,
                                            const ItemStyle&, size_t&, Warnings&);
template void write_model_items<Borrowed>(JsonWriter&,
                                          const Borrowed::Vector<ir::BasicPart<Borrowed>>&,
                                          const ItemStyle&, size_t&, Warnings&);

}  // namespace toolwire::dialects::openai_responses
