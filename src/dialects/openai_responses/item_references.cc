// `item_reference` input items, for a gateway's response store
// (Ingress::item_references): the id a decoded reference names, the items of
// an answer under the ids the client got, and where a reference sat.
//
// An answer's items are found by encoding it as the client got it and
// reading each output item back, so the ids and the item boundaries are the
// encoder's own, not a second copy of its rules.
#include "dialects/openai_responses/entry.h"

namespace toolwire::dialects::openai_responses {

std::optional<std::string> reference_id(const ir::Part& part) {
  const auto* u = std::get_if<ir::UnknownPart>(&part);
  if (!u || u->dialect != kDialect || !is_item_part(u->type) ||
      std::string_view(u->type).substr(kItemTypePrefix.size()) != kItemReference)
    return std::nullopt;
  simdjson::dom::parser parser;
  auto root = json::parse(parser, u->raw_json);
  if (!root || !root->is_object()) return std::nullopt;
  json::element id;
  if (!json::get(root->get_object().value_unsafe(), "id", id) || !id.is_string())
    return std::nullopt;
  return std::string(id.get_string().value_unsafe());
}

std::vector<StoredItem> answer_items(const ir::Response& answer) {
  std::vector<StoredItem> out;
  Warnings warnings;
  auto body = encode_response(answer, warnings);
  if (!body) return out;
  simdjson::dom::parser parser;
  auto root = json::parse(parser, *body);
  if (!root || !root->is_object()) return out;
  json::element output;
  if (!json::get(root->get_object().value_unsafe(), "output", output) || !output.is_array())
    return out;
  const json::Path path;
  size_t i = 0;
  const json::array items = output.get_array().value_unsafe();  // named: see content_decoder.cc
  for (json::element item : items) {
    json::element id, type;
    if (!item.is_object()) continue;
    const json::object obj = item.get_object().value_unsafe();
    if (!json::get(obj, "id", id) || !id.is_string() || !json::get(obj, "type", type) ||
        !type.is_string())
      continue;
    StoredItem stored;
    stored.id = std::string(id.get_string().value_unsafe());
    ItemCtx ctx{warnings, nullptr};
    if (!decode_model_item<ir::Owning>(item, type.get_string().value_unsafe(),
                                       json::Path(path, i++), stored.parts, ctx)
             .ok())
      continue;
    out.push_back(std::move(stored));
  }
  return out;
}

std::string reference_param(std::string_view body, size_t n) {
  simdjson::dom::parser parser;
  auto root = json::parse(parser, body);
  json::element input;
  if (root && root->is_object() && json::get(root->get_object().value_unsafe(), "input", input) &&
      input.is_array()) {
    size_t i = 0, seen = 0;
    const json::array items = input.get_array().value_unsafe();
    for (json::element item : items) {
      if (item.is_object()) {
        const json::object obj = item.get_object().value_unsafe();
        json::element type;
        const bool reference =
            json::get(obj, "type", type)
                ? type.is_string() && type.get_string().value_unsafe() == kItemReference
                : is_bare_reference(obj);
        if (reference && seen++ == n) return "input[" + std::to_string(i) + "]";
      }
      ++i;
    }
  }
  return "input";
}

}  // namespace toolwire::dialects::openai_responses
