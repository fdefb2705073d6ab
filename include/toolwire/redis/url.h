// toolwire/redis/url.h — `redis://HOST:PORT[/DB]`, the one form `--redis`
// and `redis.url` take.
//
//   auto url = redis::parse_url("redis://127.0.0.1:6379/2");
//   if (!url) die(url.error().message);   // names what is wrong, never echoes a password
//
// No user or password (a URL with `@` is refused, so a secret never lands in
// a command line or a config that is logged), no TLS (`rediss://` is
// refused): put Redis on a private network or a Unix-socket sidecar.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "toolwire/core/result.h"

namespace toolwire::redis {

struct Url {
  std::string host;  // a name, an IPv4 address, or an IPv6 address without brackets
  uint16_t port = 6379;
  int db = 0;  // SELECT'ed after each connect
  // "redis://host:port/db", for logs.
  std::string to_string() const;
};

// invalid_argument, with the reason, for anything but the form above.
Result<Url> parse_url(std::string_view text);

}  // namespace toolwire::redis
