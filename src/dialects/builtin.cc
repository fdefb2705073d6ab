// The built-in codecs as derived from the dialect list (src/dialects/dialects.cc,
// no static-initialiser magic), and translate_request().
#include "dialects/common/borrowed_codec.h"
#include "toolwire/dialects/codec.h"
#include "toolwire/dialects/dialect.h"

namespace toolwire::dialects {

std::vector<const Codec*> all_codecs() {
  std::vector<const Codec*> out;
  for (const Dialect& d : all_dialects())
    if (d.codec) out.push_back(&d.codec());
  return out;
}

Result<std::string> translate_request(const Codec& from, const Codec& to, std::string_view body,
                                      Warnings& warnings) {
  const EncodeOptions verified{.raw_json_verified = true};
  const Dialect* from_dialect = dialect_of(from);
  const Dialect* to_dialect = dialect_of(to);
  const BorrowedCodec* in = from_dialect ? from_dialect->borrowed : nullptr;
  const BorrowedCodec* out = to_dialect ? to_dialect->borrowed : nullptr;
  if (!in || !out) {  // a codec from outside: through the owning IR
    auto req = from.decode_request(body, warnings);
    if (!req) return req.error();
    return to.encode_request(*req, warnings, verified);
  }
  // Built-in codecs on both sides: the IR never leaves this call, so it can
  // borrow its text from `body` and the decoder's document and keep its
  // lists on this thread's arena (docs/adr/0003-view-ir-for-translation.md).
  // The document stays untouched until encoding ends: nothing else parses
  // with the decoder's thread-local parser.
  ArenaScope scope;
  BorrowedCodec::Request req;
  TW_TRY(in->decode(body, warnings, req));
  return out->encode(req, warnings, verified);
}

const Codec* find_codec(std::string_view name) {
  const Dialect* d = find_dialect(name);  // names and short aliases ("openai")
  return d && d->codec ? &d->codec() : nullptr;
}

}  // namespace toolwire::dialects
