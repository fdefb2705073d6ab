// The parts of an http(s) URL the asio client connects with.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "toolwire/core/result.h"

namespace toolwire::transport::asio_detail {

struct ParsedUrl {
  bool tls = false;
  std::string host;  // without brackets for IPv6
  uint16_t port = 0;
  std::string target;     // path and query, "/" at least
  std::string authority;  // the Host header: host[:port] as written
  std::string pool_key;   // scheme://host:port
};

// http and https only; user credentials in the URL are refused (they would
// end up in logs); errors never echo the URL's query or credentials.
Result<ParsedUrl> parse_url(std::string_view url);

}  // namespace toolwire::transport::asio_detail
