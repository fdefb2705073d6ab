// The one explicit list of built-in codecs (no static-initialiser magic),
// and translate_request().
#include "codecs/anthropic_messages/wire.h"
#include "codecs/openai_chat/wire.h"
#include "toolwire/codec/codec.h"

namespace toolwire::codec {

// Defined in each dialect's folder (codec.cc).
const Codec& openai_chat_codec();
const Codec& anthropic_messages_codec();

std::vector<const Codec*> all_codecs() {
  return {&openai_chat_codec(), &anthropic_messages_codec()};
}

namespace {

using BorrowedRequest = ir::BasicRequest<Borrowed>;

// The built-in request codecs over the borrowed IR (see translate_request).
struct BorrowedCodec {
  Status (*decode)(std::string_view, Warnings&, BorrowedRequest&);
  Result<std::string> (*encode)(const BorrowedRequest&, Warnings&, const EncodeOptions&);
};

const BorrowedCodec* borrowed_codec(const Codec& c) {
  static constexpr BorrowedCodec kOpenAi{&openai_chat::decode_request_into<Borrowed>,
                                         &openai_chat::encode_request_from<Borrowed>};
  static constexpr BorrowedCodec kAnthropic{&anthropic_messages::decode_request_into<Borrowed>,
                                            &anthropic_messages::encode_request_from<Borrowed>};
  if (&c == &openai_chat_codec()) return &kOpenAi;
  if (&c == &anthropic_messages_codec()) return &kAnthropic;
  return nullptr;
}

}  // namespace

Result<std::string> translate_request(const Codec& from, const Codec& to, std::string_view body,
                                      Warnings& warnings) {
  const EncodeOptions verified{.raw_json_verified = true};
  const BorrowedCodec* in = borrowed_codec(from);
  const BorrowedCodec* out = borrowed_codec(to);
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
  BorrowedRequest req;
  TW_TRY(in->decode(body, warnings, req));
  return out->encode(req, warnings, verified);
}

const Codec* find_codec(std::string_view name) {
  // Short aliases accepted by the CLI and configuration.
  if (name == "openai") name = "openai_chat";
  if (name == "anthropic") name = "anthropic_messages";
  for (const Codec* c : all_codecs())
    if (c->name() == name) return c;
  return nullptr;
}

}  // namespace toolwire::codec
