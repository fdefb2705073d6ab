// The gateway's TLS server context: the certificate chain and private key
// of `tls.cert` / `tls.key` (--tls-cert / --tls-key), TLS 1.2 and newer only.
//
// reload() reads both files again into a new context and makes it current
// (SIGHUP): connections accepted afterwards get the new certificate, open
// ones keep the context they were accepted with (each Stream holds its own
// reference). A reload that fails leaves the current context serving.
// Errors name the files, never their contents.
#pragma once

#include <boost/asio/ssl/context.hpp>
#include <memory>
#include <mutex>

#include "toolwire/core/result.h"
#include "toolwire/gateway/gateway.h"

namespace toolwire::gateway::tls {

class ServerContext {
 public:
  explicit ServerContext(TlsOptions options) : options_(std::move(options)) {}

  // Loads the files (again); on success the new context is current.
  Status reload();
  // The context for a new connection (null before a successful reload()).
  std::shared_ptr<boost::asio::ssl::context> current() const {
    std::lock_guard lock(mu_);
    return current_;
  }
  const TlsOptions& options() const { return options_; }

 private:
  TlsOptions options_;
  mutable std::mutex mu_;
  std::shared_ptr<boost::asio::ssl::context> current_;
};

// A context from the files, configured for serving (exposed for the tests).
Result<std::shared_ptr<boost::asio::ssl::context>> make_server_context(const TlsOptions& options);

}  // namespace toolwire::gateway::tls
