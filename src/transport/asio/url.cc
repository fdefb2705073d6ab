#include "transport/asio/url.h"

#include <charconv>

namespace toolwire::transport::asio_detail {

Result<ParsedUrl> parse_url(std::string_view url) {
  ParsedUrl out;
  std::string_view rest;
  if (url.starts_with("http://")) {
    rest = url.substr(7);
  } else if (url.starts_with("https://")) {
    out.tls = true;
    rest = url.substr(8);
  } else {
    return make_error(ErrorCode::invalid_argument, "URL scheme must be http or https");
  }
  size_t end = rest.find_first_of("/?#");
  std::string_view authority = rest.substr(0, end);
  std::string_view target =
      end == std::string_view::npos ? std::string_view("/") : rest.substr(end);
  if (auto hash = target.find('#'); hash != std::string_view::npos) target = target.substr(0, hash);
  if (authority.find('@') != std::string_view::npos)
    return make_error(ErrorCode::invalid_argument, "credentials in a URL are not accepted");
  if (authority.empty()) return make_error(ErrorCode::invalid_argument, "URL has no host");
  std::string_view host = authority, port;
  if (authority.front() == '[') {
    size_t close = authority.find(']');
    if (close == std::string_view::npos)
      return make_error(ErrorCode::invalid_argument, "bad IPv6 host in URL");
    host = authority.substr(1, close - 1);
    std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') return make_error(ErrorCode::invalid_argument, "bad host in URL");
      port = after.substr(1);
    }
  } else if (auto colon = authority.rfind(':'); colon != std::string_view::npos) {
    host = authority.substr(0, colon);
    port = authority.substr(colon + 1);
  }
  if (host.empty()) return make_error(ErrorCode::invalid_argument, "URL has no host");
  out.port = out.tls ? 443 : 80;
  if (!port.empty()) {
    unsigned p = 0;
    auto [ptr, ec] = std::from_chars(port.data(), port.data() + port.size(), p);
    if (ec != std::errc() || ptr != port.data() + port.size() || p == 0 || p > 65535)
      return make_error(ErrorCode::invalid_argument, "bad port in URL");
    out.port = static_cast<uint16_t>(p);
  }
  out.host = std::string(host);
  out.authority = std::string(authority);
  out.target = target.empty() ? "/" : std::string(target);
  if (out.target.front() == '?') out.target.insert(out.target.begin(), '/');
  out.pool_key =
      std::string(out.tls ? "https://" : "http://") + out.host + ":" + std::to_string(out.port);
  return out;
}

}  // namespace toolwire::transport::asio_detail
