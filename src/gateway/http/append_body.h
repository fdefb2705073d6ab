// A Beast body that reads into a std::string by appending each piece.
// Beast's string_body resizes the string (zero-filling the new bytes) before
// it copies a piece in: on the request path that was a memset of every
// request body, for bytes overwritten at once.
#pragma once

#include <boost/beast/core/buffers_range.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/optional.hpp>
#include <cstdint>
#include <string>

namespace toolwire::gateway::http {

struct AppendStringBody {
  using value_type = std::string;

  static std::uint64_t size(const value_type& body) { return body.size(); }

  class reader {
   public:
    template <bool isRequest, class Fields>
    reader(boost::beast::http::header<isRequest, Fields>&, value_type& body) : body_(body) {}

    // The parser has already held a Content-Length to the body limit.
    void init(const boost::optional<std::uint64_t>& length, boost::system::error_code& ec) {
      ec = {};
      if (!length) return;
      if (*length > body_.max_size()) {
        ec = boost::beast::http::error::buffer_overflow;
        return;
      }
      body_.reserve(static_cast<size_t>(*length));
    }

    template <class ConstBufferSequence>
    std::size_t put(const ConstBufferSequence& buffers, boost::system::error_code& ec) {
      ec = {};
      std::size_t n = 0;
      for (auto b : boost::beast::buffers_range_ref(buffers)) {
        body_.append(static_cast<const char*>(b.data()), b.size());
        n += b.size();
      }
      return n;
    }

    void finish(boost::system::error_code& ec) { ec = {}; }

   private:
    value_type& body_;
  };
};

}  // namespace toolwire::gateway::http
