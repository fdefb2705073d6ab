#include "gateway/http2/upgrade.h"

#include <cctype>
#include <string_view>

namespace toolwire::gateway::http2 {

namespace {

// Whether a comma-separated header value lists `token` (case-insensitive).
bool has_token(std::string_view list, std::string_view token) {
  while (!list.empty()) {
    size_t comma = list.find(',');
    std::string_view item = list.substr(0, comma);
    list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
    while (!item.empty() && (item.front() == ' ' || item.front() == '\t')) item.remove_prefix(1);
    while (!item.empty() && (item.back() == ' ' || item.back() == '\t')) item.remove_suffix(1);
    if (item.size() != token.size()) continue;
    bool same = true;
    for (size_t i = 0; i < item.size() && same; ++i)
      same = std::tolower(static_cast<unsigned char>(item[i])) == token[i];
    if (same) return true;
  }
  return false;
}

// base64url without padding (RFC 4648 section 5), as HTTP2-Settings is sent.
std::optional<std::string> base64url_decode(std::string_view in) {
  while (!in.empty() && in.back() == '=') in.remove_suffix(1);
  std::string out;
  out.reserve(in.size() * 3 / 4);
  uint32_t acc = 0;
  int bits = 0;
  for (char c : in) {
    int v = c >= 'A' && c <= 'Z'   ? c - 'A'
            : c >= 'a' && c <= 'z' ? c - 'a' + 26
            : c >= '0' && c <= '9' ? c - '0' + 52
            : c == '-'             ? 62
            : c == '_'             ? 63
                                   : -1;
    if (v < 0) return std::nullopt;
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xff));
    }
  }
  if (bits >= 6) return std::nullopt;  // a dangling character
  return out;
}

}  // namespace

std::optional<std::string> h2c_upgrade_settings(const http::Request& r) {
  if (r.version != 11 || !has_token(r.header("upgrade"), "h2c") ||
      !has_token(r.header("connection"), "http2-settings"))
    return std::nullopt;
  auto settings = base64url_decode(r.header("http2-settings"));
  // A SETTINGS payload is a whole number of 6-byte entries.
  if (!settings || settings->size() % 6 != 0) return std::nullopt;
  return settings;
}

}  // namespace toolwire::gateway::http2
