// wire_functions.h — the functions every dialect folder defines, declared
// once: `TW_DIALECT_FUNCTIONS` inside a folder's namespace (its wire.h) names
// them there, and codec_adapter.h's `TW_CODEC_FUNCTIONS(folder)` puts them
// behind the Codec interface. It includes what every wire.h uses: the IR over
// both policies, DOM reading (json_in, fields, dom_json, seen_ids), style.h
// and the JsonWriter.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "dialects/common/borrowed_ir.h"
#include "dialects/common/dom_json.h"
#include "dialects/common/fields.h"
#include "dialects/common/json_in.h"
#include "dialects/common/seen_ids.h"
#include "dialects/common/style.h"
#include "toolwire/core/json_writer.h"
#include "toolwire/dialects/codec.h"

// The request codec over either IR policy (ir::Owning, Borrowed), instantiated
// in the folder's .cc files; the responses, streams and errors; and the map of
// a stream's error type to an ErrorCode (the dialect list's hook).
#define TW_DIALECT_FUNCTIONS                                                                       \
  template <class S>                                                                               \
  Status decode_request_into(std::string_view json, Warnings& warnings, ir::BasicRequest<S>& out); \
  template <class S>                                                                               \
  Result<std::string> encode_request_from(const ir::BasicRequest<S>& request, Warnings& warnings,  \
                                          const EncodeOptions& options);                           \
  Result<ir::Response> decode_response(std::string_view json, Warnings& warnings);                 \
  Result<std::string> encode_response(const ir::Response& response, Warnings& warnings);           \
  std::unique_ptr<StreamDecoder> make_stream_decoder();                                            \
  std::unique_ptr<StreamEncoder> make_stream_encoder();                                            \
  WireError encode_error(const Error& error);                                                      \
  Error decode_error(int http_status, std::string_view body);                                      \
  ErrorCode stream_error_code(std::string_view type)

// The two instantiations (ir::Owning, Borrowed) of a folder's request decoder
// and encoder templates, written once at the end of request_decoder.cc and
// request_encoder.cc.
#define TW_INSTANTIATE_REQUEST_DECODER                                                     \
  template Status decode_request_into<::toolwire::ir::Owning>(std::string_view, Warnings&, \
                                                              ::toolwire::ir::Request&);   \
  template Status decode_request_into<Borrowed>(std::string_view, Warnings&,               \
                                                ::toolwire::ir::BasicRequest<Borrowed>&)
#define TW_INSTANTIATE_REQUEST_ENCODER                                      \
  template Result<std::string> encode_request_from<::toolwire::ir::Owning>( \
      const ::toolwire::ir::Request&, Warnings&, const EncodeOptions&);     \
  template Result<std::string> encode_request_from<Borrowed>(               \
      const ::toolwire::ir::BasicRequest<Borrowed>&, Warnings&, const EncodeOptions&)
