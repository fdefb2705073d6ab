#include "toolwire/redis/url.h"

#include <charconv>

namespace toolwire::redis {
namespace {

Error bad(std::string why) {
  return make_error(ErrorCode::invalid_argument,
                    "redis URL: " + why + " (expected redis://HOST:PORT[/DB])");
}

bool host_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '.' || c == '_';
}

template <class Int>
bool number(std::string_view s, Int lo, Int hi, Int& out) {
  if (s.empty() || s.size() > 10) return false;
  Int v{};
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || v < lo || v > hi) return false;
  out = v;
  return true;
}

}  // namespace

std::string Url::to_string() const {
  std::string h = host.find(':') != std::string::npos ? "[" + host + "]" : host;
  return "redis://" + h + ":" + std::to_string(port) + "/" + std::to_string(db);
}

Result<Url> parse_url(std::string_view text) {
  constexpr std::string_view kScheme = "redis://";
  if (text.starts_with("rediss://")) return bad("TLS (rediss://) is not supported");
  if (!text.starts_with(kScheme)) return bad("it must start with redis://");
  std::string_view rest = text.substr(kScheme.size());
  // Refused without showing the text: it may hold a password.
  if (rest.find('@') != std::string_view::npos)
    return bad("credentials in the URL are not supported");
  if (rest.find_first_of("?#") != std::string_view::npos)
    return bad("no query or fragment is taken");
  Url url;
  std::string_view authority = rest.substr(0, rest.find('/'));
  std::string_view path =
      rest.find('/') == std::string_view::npos ? std::string_view() : rest.substr(rest.find('/'));
  std::string_view port;
  if (authority.starts_with('[')) {  // [v6]:port
    auto close = authority.find(']');
    if (close == std::string_view::npos) return bad("an IPv6 host needs its closing ]");
    url.host = std::string(authority.substr(1, close - 1));
    std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') return bad("expected :PORT after the IPv6 host");
      port = after.substr(1);
      if (port.empty()) return bad("empty port");
    }
    if (url.host.empty()) return bad("empty host");
    if (url.host.find(':') == std::string::npos) return bad("brackets are for IPv6 addresses");
    for (char c : url.host)
      if (!(host_char(c) || c == ':' || c == '%')) return bad("bad character in the IPv6 host");
  } else {
    auto colon = authority.find(':');
    url.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) {
      port = authority.substr(colon + 1);
      if (port.empty()) return bad("empty port");
    }
    if (url.host.empty()) return bad("empty host");
    if (url.host.size() > 253) return bad("host name too long");
    for (char c : url.host)
      if (!host_char(c)) return bad("bad character in the host");
  }
  if (!port.empty() && !number<uint16_t>(port, 1, 65535, url.port))
    return bad("the port must be a number from 1 to 65535");
  if (!path.empty() && path != "/") {
    if (!number<int>(path.substr(1), 0, 1'000'000, url.db))
      return bad("the database must be a number (/0, /1, ...)");
  }
  return url;
}

}  // namespace toolwire::redis
