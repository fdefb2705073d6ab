// borrowed_ir.h — the IR storage policy of translate_request(), and how a
// decoder puts text into either policy. Private to the codecs.
//
// `Borrowed` holds text as string views into the request body and the
// parser's document (both alive for the whole translate_request call) and
// lists on this thread's arena (arena.h). The request codecs are templates
// over the policy (ir/storage.h); decoders name their strings through
// IrText<S> so the same line copies for the owning IR and borrows for this one:
//
//   part.text = IrText<S>::keep(dom_string);    // input text: a view, or a copy
//   part.id = IrText<S>::made(std::move(s));    // text the decoder built
//   def.input_schema = IrText<S>::raw_json(el); // an object's JSON text
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "dialects/common/arena.h"
#include "dialects/common/dom_json.h"
#include "dialects/common/json_in.h"
#include "dialects/common/source_text.h"
#include "toolwire/ir/request.h"

namespace toolwire::dialects {

struct Borrowed {
  using String = std::string_view;
  template <class T>
  using Vector = std::vector<T, ArenaAllocator<T>>;
};

template <class S>
struct IrText;

template <>
struct IrText<ir::Owning> {
  // Text of the input (DOM strings, slices of the body).
  static std::string keep(std::string_view v) { return std::string(v); }
  // Text built while decoding.
  static std::string made(std::string&& s) { return std::move(s); }
  static std::string raw_json(json::element e) { return json::compact(e); }
  static void drop_prefix(std::string& s, size_t n) { s.erase(0, n); }
};

template <>
struct IrText<Borrowed> {
  static std::string_view keep(std::string_view v) { return v; }
  static std::string_view made(const std::string& s) { return Arena::current().copy(s); }
  static std::string_view raw_json(json::element e) {
    std::string_view slice;
    if (json::source_slice(e, slice)) return slice;
    return made(json::compact(e));
  }
  static void drop_prefix(std::string_view& s, size_t n) { s.remove_prefix(n); }
};

}  // namespace toolwire::dialects
