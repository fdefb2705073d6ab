// toolwire/dialects/framing/sigv4.h — AWS Signature Version 4 request signing
// (AWS4-HMAC-SHA256 in the `authorization` header), as a pure function:
// the time and the credentials are inputs, so a signature can be checked
// against a reference signer (tests/dialect_bedrock_converse/sigv4_test.cc
// holds it to @smithy/signature-v4).
//
//   HeaderList added;
//   sigv4_sign({.method = "POST", .url = url, .body = body, .headers = &headers},
//              {.access_key_id = id, .secret_access_key = secret},
//              {.region = "us-east-1", .service = "bedrock", .unix_seconds = now}, added);
//   // added: x-amz-date, x-amz-content-sha256, [x-amz-security-token], authorization
//
// What is signed, as @smithy/signature-v4 does for every service but S3:
// the path with each segment percent-encoded once more (a model id
// "amazon.nova-lite-v1:0" travels as "amazon.nova-lite-v1%3A0" and is signed
// as "amazon.nova-lite-v1%253A0"), empty and "." segments dropped and ".."
// resolved; the query sorted by encoded key; `host` (the URL's authority)
// and every given header but the ones proxies rewrite (authorization,
// user-agent, connection, expect, transfer-encoding, ...), names
// lower-cased, values trimmed with inner runs of spaces collapsed.
// The secret key and the session token never appear in an error.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "toolwire/dialects/dialect.h"

namespace toolwire::dialects {

struct AwsCredentials {
  std::string_view access_key_id;
  std::string_view secret_access_key;
  std::string_view session_token;  // empty: long-term credentials
};

struct SigV4Scope {
  std::string_view region;
  std::string_view service;
  int64_t unix_seconds = 0;  // the signing time
  // Send and sign x-amz-content-sha256 (the payload's hash).
  bool content_sha256 = true;
};

struct SigV4Request {
  std::string_view method;
  std::string_view url;  // http(s)://authority/path?query, as sent
  std::string_view body;
  const HeaderList* headers = nullptr;  // the request's other headers (all signed)
};

// Appends the headers that authenticate `request` to `out`. Fails only on a
// URL it cannot read (no scheme or host).
Status sigv4_sign(const SigV4Request& request, const AwsCredentials& credentials,
                  const SigV4Scope& scope, HeaderList& out);

// Pieces, exposed for tests.
std::string sigv4_canonical_path(std::string_view raw_path);
std::string sha256_hex(std::string_view data);

}  // namespace toolwire::dialects
