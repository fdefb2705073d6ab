// --otlp-endpoint / telemetry.otlp.endpoint → the URL traces are POSTed to,
// and the check of the headers sent with them.
#include <cctype>

#include "toolwire/telemetry/otlp_exporter.h"

namespace toolwire::telemetry {
namespace {

// The URL is not repeated: it may hold what should not reach a log.
Error bad(std::string_view, std::string why) {
  return make_error(ErrorCode::invalid_argument, "OTLP endpoint: " + std::move(why));
}

bool starts_with_nocase(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(s[i])) != prefix[i]) return false;
  return true;
}

}  // namespace

Result<std::string> otlp_traces_url(std::string_view endpoint) {
  for (char c : endpoint)
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f)
      return bad(endpoint, "a URL has no spaces or control characters");
  size_t scheme = starts_with_nocase(endpoint, "http://")    ? 7
                  : starts_with_nocase(endpoint, "https://") ? 8
                                                             : 0;
  if (scheme == 0) return bad(endpoint, "give an http:// or https:// URL");
  if (endpoint.find_first_of("?#") != std::string_view::npos)
    return bad(endpoint, "no query or fragment (the path /v1/traces is added when missing)");
  std::string_view rest = endpoint.substr(scheme);
  size_t slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  std::string_view path = slash == std::string_view::npos ? "" : rest.substr(slash);
  // Credentials in a URL end up in logs: a collector's token goes in a header.
  if (authority.find('@') != std::string_view::npos)
    return bad(endpoint, "no user:password@ in the URL (give credentials with a header)");
  std::string_view host = authority, port;
  if (!authority.empty() && authority.front() == '[') {
    size_t close = authority.find(']');
    if (close == std::string_view::npos) return bad(endpoint, "an IPv6 address needs its ']'");
    host = authority.substr(0, close + 1);
    std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') return bad(endpoint, "unexpected text after the IPv6 address");
      port = after.substr(1);
      if (port.empty()) return bad(endpoint, "an empty port");
    }
  } else if (size_t colon = authority.rfind(':'); colon != std::string_view::npos) {
    host = authority.substr(0, colon);
    port = authority.substr(colon + 1);
    if (port.empty()) return bad(endpoint, "an empty port");
  }
  if (host.empty() || host == "[]") return bad(endpoint, "no host");
  if (!port.empty()) {
    unsigned long n = 0;
    for (char c : port) {
      if (c < '0' || c > '9' || port.size() > 5) return bad(endpoint, "the port is not a number");
      n = n * 10 + static_cast<unsigned long>(c - '0');
    }
    if (n == 0 || n > 65535) return bad(endpoint, "the port is not within 1-65535");
  }
  std::string base(endpoint.substr(0, scheme + authority.size()));
  constexpr std::string_view kPath = "/v1/traces";
  if (path.size() >= kPath.size() && path.substr(path.size() - kPath.size()) == kPath)
    return base + std::string(path);
  while (!path.empty() && path.back() == '/') path.remove_suffix(1);
  return base + std::string(path) + std::string(kPath);
}

std::string otlp_header_problem(std::string_view name, std::string_view value) {
  if (name.empty()) return "an empty header name";
  for (char c : name) {
    const auto u = static_cast<unsigned char>(c);
    if (!std::isalnum(u) && std::string_view("!#$%&'*+-.^_`|~").find(c) == std::string_view::npos)
      return "'" + std::string(name) + "' is not a header name";
  }
  if (value.find_first_of(std::string_view("\r\n\0", 3)) != std::string_view::npos)
    return "a header value has no line breaks";
  return {};
}

}  // namespace toolwire::telemetry
