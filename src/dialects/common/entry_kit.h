// entry_kit.h — what every dialect folder's entry.h is made of: the Dialect
// and Ingress declarations, the borrowed request codec, and the functions the
// folder's codec.cc and ingress.cc define for its entry.
#pragma once

#include "dialects/common/borrowed_codec.h"
#include "toolwire/dialects/dialect.h"
#include "toolwire/dialects/ingress.h"

// Inside a folder's namespace: its Codec (codec.cc) and its model-call route
// matcher (ingress.cc).
#define TW_ENTRY_FUNCTIONS \
  const Codec& codec();    \
  std::optional<Result<RouteMatch>> match_model_call(std::string_view path, std::string_view query)

// The entry's two codec fields: the Codec, and the borrowed request path
// (translate_request) over the folder's request codec templates.
#define TW_ENTRY_CODECS \
  .codec = &codec,      \
  .borrowed = &kBorrowedCodec<&decode_request_into<Borrowed>, &encode_request_from<Borrowed>>
