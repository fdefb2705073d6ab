// borrowed_codec.h — a built-in codec's request half over the borrowed IR
// (docs/adr/0003-view-ir-for-translation.md). Each dialect entry of
// src/dialects/dialects.cc points at one; translate_request uses it.
#pragma once

#include <string>
#include <string_view>

#include "dialects/common/borrowed_ir.h"
#include "toolwire/dialects/dialect.h"

namespace toolwire::dialects {

struct BorrowedCodec {
  using Request = ir::BasicRequest<Borrowed>;
  Status (*decode)(std::string_view, Warnings&, Request&);
  Result<std::string> (*encode)(const Request&, Warnings&, const EncodeOptions&);
};

// The entry for a dialect folder's decode_request_into / encode_request_from.
template <auto Decode, auto Encode>
inline constexpr BorrowedCodec kBorrowedCodec{Decode, Encode};

}  // namespace toolwire::dialects
