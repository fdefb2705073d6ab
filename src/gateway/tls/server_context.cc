#include "gateway/tls/server_context.h"

#include <openssl/err.h>
#include <openssl/ssl.h>

#include <string>

namespace toolwire::gateway::tls {

namespace ssl = boost::asio::ssl;

namespace {

// OpenSSL's reason for the last failure ("no such file", "key values
// mismatch"): its error queue names files and functions, never key bytes.
std::string openssl_reason(const boost::system::error_code& ec) {
  const char* reason = ERR_reason_error_string(ERR_peek_last_error());
  std::string why = reason ? reason : ec.message();
  ERR_clear_error();
  return why;
}

Error tls_error(const std::string& what, const std::string& path,
                const boost::system::error_code& ec) {
  return make_error(ErrorCode::invalid_argument,
                    "tls: cannot " + what + " '" + path + "': " + openssl_reason(ec));
}

// ALPN: HTTP/2 when the client offers it, else HTTP/1.1; a client that
// offers neither goes on without ALPN (RFC 7301 allows it) and speaks
// HTTP/1.1.
int select_alpn(SSL*, const unsigned char** out, unsigned char* outlen, const unsigned char* in,
                unsigned int inlen, void*) {
  static const unsigned char kOurs[] = {2, 'h', '2', 8, 'h', 't', 't', 'p', '/', '1', '.', '1'};
  unsigned char* selected = nullptr;
  if (SSL_select_next_proto(&selected, outlen, kOurs, sizeof kOurs, in, inlen) !=
      OPENSSL_NPN_NEGOTIATED)
    return SSL_TLSEXT_ERR_NOACK;
  *out = selected;
  return SSL_TLSEXT_ERR_OK;
}

}  // namespace

Result<std::shared_ptr<ssl::context>> make_server_context(const TlsOptions& o) {
  auto ctx = std::make_shared<ssl::context>(ssl::context::tls_server);
  SSL_CTX* native = ctx->native_handle();
  // TLS 1.2 and 1.3 only; no renegotiation (a client could make the server
  // redo the expensive half of a handshake at will); OpenSSL's per-connection
  // buffers go back while a connection is idle.
  SSL_CTX_set_min_proto_version(native, TLS1_2_VERSION);
  SSL_CTX_set_options(
      native, SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE | SSL_OP_NO_COMPRESSION);
  SSL_CTX_set_mode(native, SSL_MODE_RELEASE_BUFFERS);
  SSL_CTX_set_alpn_select_cb(native, select_alpn, nullptr);
  boost::system::error_code ec;
  ctx->use_certificate_chain_file(o.cert_file, ec);
  if (ec) return tls_error("read the certificate chain", o.cert_file, ec);
  ctx->use_private_key_file(o.key_file, ssl::context::pem, ec);
  if (ec) return tls_error("use the private key", o.key_file, ec);
  if (SSL_CTX_check_private_key(native) != 1) {
    ERR_clear_error();
    return make_error(ErrorCode::invalid_argument, "tls: the private key '" + o.key_file +
                                                       "' does not match the certificate '" +
                                                       o.cert_file + "'");
  }
  return ctx;
}

Status ServerContext::reload() {
  auto ctx = make_server_context(options_);
  if (!ctx) return std::move(ctx).error();
  std::lock_guard lock(mu_);
  current_ = std::move(*ctx);
  return Status::Ok();
}

}  // namespace toolwire::gateway::tls
