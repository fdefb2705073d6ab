// toolwire/ir/storage.h — how the IR types hold their text and lists.
//
// Every IR type is a template over a storage policy `S` with two members:
// `S::String` (text) and `S::Vector<T>` (lists). The public names (ir::Request,
// ir::TextPart, ...) are the owning instantiation, `Owning`: std::string and
// std::vector, values a caller can keep, copy and edit.
//
// The one other policy is private to src/dialects/ (borrowed_ir.h): string
// views into the request being translated and vectors on a per-call arena.
// translate_request() uses it because its IR never leaves the call; the
// request codecs are written once, as templates over the policy, so both
// paths share every translation rule (docs/adr/0003-view-ir-for-translation.md).
#pragma once

#include <string>
#include <vector>

namespace toolwire::ir {

struct Owning {
  using String = std::string;
  template <class T>
  using Vector = std::vector<T>;
};

}  // namespace toolwire::ir
