// Secret hygiene for anything that describes a request to a human.
#include "toolwire/transport/redact.h"

#include <array>

namespace toolwire::transport {

namespace {

bool icontains(std::string_view hay, std::string_view needle) {
  if (needle.size() > hay.size()) return false;
  for (size_t i = 0; i + needle.size() <= hay.size(); ++i) {
    if (iequals(hay.substr(i, needle.size()), needle)) return true;
  }
  return false;
}

void replace_all(std::string& text, std::string_view needle, std::string_view with) {
  if (needle.empty()) return;
  size_t pos = 0;
  while ((pos = text.find(needle, pos)) != std::string::npos) {
    text.replace(pos, needle.size(), with);
    pos += with.size();
  }
}

}  // namespace

bool is_sensitive_header(std::string_view name) {
  static constexpr std::array<std::string_view, 4> exact = {"authorization", "proxy-authorization",
                                                            "cookie", "set-cookie"};
  for (auto e : exact) {
    if (iequals(name, e)) return true;
  }
  static constexpr std::array<std::string_view, 5> parts = {"key", "token", "secret", "auth",
                                                            "password"};
  for (auto p : parts) {
    if (icontains(name, p)) return true;
  }
  return false;
}

std::string redact_url(std::string_view url) {
  size_t scheme_end = url.find("://");
  size_t authority = scheme_end == std::string_view::npos ? 0 : scheme_end + 3;
  size_t cut = url.find_first_of("?#", authority);
  std::string_view head = url.substr(0, cut);
  std::string out;
  // Userinfo sits between the authority start and an '@' before the path.
  size_t path = head.find('/', authority);
  size_t at = head.rfind('@', path == std::string_view::npos ? head.size() : path);
  if (at != std::string_view::npos && at >= authority) {
    out.append(head.substr(0, authority)).append("<redacted>@").append(head.substr(at + 1));
  } else {
    out.append(head);
  }
  if (cut != std::string_view::npos) out.append(url[cut] == '?' ? "?<redacted>" : "#<redacted>");
  return out;
}

HttpHeaders redacted_headers(const HttpHeaders& headers) {
  HttpHeaders out;
  for (const auto& [n, v] : headers)
    out.add(n, is_sensitive_header(n) ? std::string("<redacted>") : v);
  return out;
}

std::string scrub_secrets(std::string text, const HttpHeaders& headers) {
  for (const auto& [n, v] : headers) {
    if (!is_sensitive_header(n)) continue;
    std::string_view value = v;
    // Scrub the credential after a scheme ("Bearer sk-...") as well as the whole value.
    size_t sp = value.find(' ');
    if (sp != std::string_view::npos && value.size() - sp - 1 >= 4)
      replace_all(text, value.substr(sp + 1), "<redacted>");
    if (value.size() >= 4) replace_all(text, value, "<redacted>");
  }
  return text;
}

std::string scrub_address(std::string text, std::string_view url, std::string_view name) {
  size_t scheme_end = url.find("://");
  size_t start = scheme_end == std::string_view::npos ? 0 : scheme_end + 3;
  size_t end = url.find_first_of("/?#", start);
  std::string_view origin = url.substr(0, end);  // scheme://userinfo@host:port
  std::string_view authority = url.substr(start, end == std::string_view::npos ? end : end - start);
  if (size_t at = authority.rfind('@'); at != std::string_view::npos)
    authority.remove_prefix(at + 1);
  std::string host(authority), port;
  if (!authority.empty() && authority.front() == '[') {
    size_t rb = authority.find(']');
    if (rb != std::string_view::npos) {
      host = std::string(authority.substr(1, rb - 1));
      if (rb + 1 < authority.size() && authority[rb + 1] == ':')
        port = std::string(authority.substr(rb + 2));
    }
  } else if (size_t colon = authority.rfind(':'); colon != std::string_view::npos) {
    host = std::string(authority.substr(0, colon));
    port = std::string(authority.substr(colon + 1));
  }
  // Transports name the connection with its port even when the URL has none.
  if (port.empty()) port = url.substr(0, start) == "https://" ? "443" : "80";
  const std::string full = redact_url(url);
  // "POST http://10.0.0.7:8000/v1/chat/completions: ..." → "...".
  if (size_t sp = text.find(' '); sp != std::string::npos && sp < 10 &&
                                  text.compare(sp + 1, full.size(), full) == 0 &&
                                  text.compare(sp + 1 + full.size(), 2, ": ") == 0)
    text.erase(0, sp + 1 + full.size() + 2);
  const std::string bracketed = host.find(':') != std::string::npos ? "[" + host + "]" : host;
  const std::string scheme(url.substr(0, start));
  replace_all(text, full, name);
  replace_all(text, scheme + bracketed + ":" + port, name);
  replace_all(text, redact_url(origin), name);
  if (!origin.empty()) replace_all(text, origin, name);
  replace_all(text, host + " port " + port, name);
  replace_all(text, bracketed + ":" + port, name);
  if (host.size() >= 3) replace_all(text, host, name);
  return text;
}

}  // namespace toolwire::transport
