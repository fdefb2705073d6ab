#include "dialects/common/request_size.h"

#include <variant>

#include "dialects/common/borrowed_ir.h"

namespace toolwire::dialects {

namespace {
size_t text_bytes(size_t n) { return n + n / 4 + 32; }
}  // namespace

template <class S>
size_t estimate_request_json_size(const ir::BasicRequest<S>& req) {
  size_t n = 256 + req.model.size() + req.metadata.size();
  for (const auto& t : req.tools)
    n += t.name.size() + text_bytes(t.description.size()) + t.input_schema.size() + 96;
  for (const auto& s : req.system) n += text_bytes(s.text.size());
  for (const auto& m : req.messages) {
    n += 48;
    for (const auto& p : m.parts) {
      if (auto* t = std::get_if<ir::BasicTextPart<S>>(&p)) {
        n += text_bytes(t->text.size());
      } else if (auto* c = std::get_if<ir::BasicToolCallPart<S>>(&p)) {
        n += text_bytes(c->arguments.size()) + c->id.size() + c->name.size() + 96;
      } else if (auto* r = std::get_if<ir::BasicToolResultPart<S>>(&p)) {
        n += 96 + r->call_id.size();
        for (const auto& rc : r->content)
          n += std::holds_alternative<ir::BasicTextPart<S>>(rc)
                   ? text_bytes(std::get<ir::BasicTextPart<S>>(rc).text.size())
                   : 128;
      } else {
        n += 128;
      }
    }
  }
  for (const auto& x : req.extra) n += x.key.size() + x.raw_json.size() + 8;
  return n;
}

template size_t estimate_request_json_size<ir::Owning>(const ir::Request&);
template size_t estimate_request_json_size<Borrowed>(const ir::BasicRequest<Borrowed>&);

}  // namespace toolwire::dialects
