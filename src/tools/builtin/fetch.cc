// fetch: HTTP GET with libcurl's easy API. http/https only (also on
// redirects), a byte cap, a time cap, no proxies from the environment, and by
// default no connections to loopback/private/link-local addresses — checked on
// the address actually connected to, so DNS tricks do not get around it.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <cstring>
#include <memory>
#include <mutex>
#include "toolwire/libcurl/api.h"

#include "tools/builtin/common.h"

namespace toolwire::tools::builtin {
namespace {

struct Transfer {
  std::string body;
  size_t cap = 0;
  bool truncated = false;
  bool allow_private = false;
  std::string refused_address;
};

size_t on_body(char* data, size_t size, size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  size_t len = size * n;
  size_t room = t->cap - t->body.size();
  if (len > room) {
    t->body.append(data, room);
    t->truncated = true;
    return 0;  // aborts the transfer (CURLE_WRITE_ERROR)
  }
  t->body.append(data, len);
  return len;
}

bool private_v4(uint32_t a) {  // host byte order
  return (a >> 24) == 0 || (a >> 24) == 10 || (a >> 24) == 127 ||
         (a >> 16) == 0xA9FE ||  // 0/8 10/8 127/8 169.254/16
         (a >> 20) == 0xAC1 || (a >> 16) == 0xC0A8 ||
         (a >> 22) == (0x64400000u >> 22) ||  // 172.16/12 192.168/16 100.64/10
         a >= 0xE0000000u;                    // multicast, reserved
}

bool private_addr(const sockaddr* sa) {
  if (sa->sa_family == AF_INET)
    return private_v4(ntohl(reinterpret_cast<const sockaddr_in*>(sa)->sin_addr.s_addr));
  if (sa->sa_family == AF_INET6) {
    const in6_addr& a = reinterpret_cast<const sockaddr_in6*>(sa)->sin6_addr;
    if (IN6_IS_ADDR_LOOPBACK(&a) || IN6_IS_ADDR_UNSPECIFIED(&a) || IN6_IS_ADDR_LINKLOCAL(&a) ||
        IN6_IS_ADDR_SITELOCAL(&a) || IN6_IS_ADDR_MULTICAST(&a) || (a.s6_addr[0] & 0xFE) == 0xFC)
      return true;
    if (IN6_IS_ADDR_V4MAPPED(&a) || IN6_IS_ADDR_V4COMPAT(&a)) {
      uint32_t v4;
      std::memcpy(&v4, a.s6_addr + 12, 4);
      return private_v4(ntohl(v4));
    }
    return false;
  }
  return true;  // unix sockets and anything else
}

curl_socket_t open_socket(void* user, curlsocktype, curl_sockaddr* addr) {
  auto* t = static_cast<Transfer*>(user);
  if (!t->allow_private && private_addr(&addr->addr)) {
    char buf[INET6_ADDRSTRLEN] = "?";
    if (addr->family == AF_INET)
      inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(&addr->addr)->sin_addr, buf, sizeof buf);
    else if (addr->family == AF_INET6)
      inet_ntop(AF_INET6, &reinterpret_cast<sockaddr_in6*>(&addr->addr)->sin6_addr, buf,
                sizeof buf);
    t->refused_address = buf;
    return CURL_SOCKET_BAD;
  }
  return socket(addr->family, addr->socktype | SOCK_CLOEXEC, addr->protocol);
}

int on_progress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  auto* ctx = static_cast<ToolContext*>(user);
  return ctx->cancelled() ? 1 : 0;
}

Result<ToolOutput> do_fetch(const nlohmann::json& args, const BuiltinContext& bc,
                            ToolContext& ctx) {
  static std::once_flag init;
  std::call_once(init, [] { libcurl::global_init(CURL_GLOBAL_DEFAULT); });
  auto url = arg_string(args, "url");
  if (!url) return url.error();
  const auto& opt = bc.options;

  // Parse with curl's own URL parser so the scheme we check is the one it uses.
  CURLU* u = libcurl::url();
  std::unique_ptr<CURLU, decltype(&libcurl::url_cleanup)> u_guard(u, libcurl::url_cleanup);
  if (libcurl::url_set(u, CURLUPART_URL, url->c_str(), 0) != CURLUE_OK)
    return make_error(ErrorCode::invalid_argument, "not a valid absolute URL", "$.url");
  char* scheme = nullptr;
  libcurl::url_get(u, CURLUPART_SCHEME, &scheme, 0);
  std::string sch = scheme ? scheme : "";
  libcurl::free(scheme);
  if (sch != "http" && sch != "https")
    return make_error(ErrorCode::permission_denied,
                      "scheme '" + sch + "' refused; only http and https", "$.url");

  CURL* c = libcurl::easy_init();
  if (!c) return make_error(ErrorCode::internal, "curl_easy_init failed");
  std::unique_ptr<CURL, decltype(&libcurl::easy_cleanup)> c_guard(c, libcurl::easy_cleanup);
  Transfer t;
  t.cap = opt.fetch_max_bytes;
  t.allow_private = opt.fetch_allow_private_networks;
  auto tmo = budget(ctx, opt.fetch_timeout);
  char errbuf[CURL_ERROR_SIZE] = "";
  libcurl::easy_setopt(c, CURLOPT_CURLU, u);
  libcurl::easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  libcurl::easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  libcurl::easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
  libcurl::easy_setopt(c, CURLOPT_MAXREDIRS, opt.fetch_max_redirects);
  libcurl::easy_setopt(c, CURLOPT_TIMEOUT_MS, static_cast<long>(tmo.count()));
  libcurl::easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(tmo.count()));
  libcurl::easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  libcurl::easy_setopt(c, CURLOPT_PROXY, "");  // ignore *_proxy environment variables
  libcurl::easy_setopt(c, CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(opt.fetch_max_bytes));
  libcurl::easy_setopt(c, CURLOPT_ACCEPT_ENCODING, "");  // decoded size is what the cap counts
  libcurl::easy_setopt(c, CURLOPT_USERAGENT, "toolwire-fetch/0.1");
  libcurl::easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
  libcurl::easy_setopt(c, CURLOPT_WRITEDATA, &t);
  libcurl::easy_setopt(c, CURLOPT_OPENSOCKETFUNCTION, open_socket);
  libcurl::easy_setopt(c, CURLOPT_OPENSOCKETDATA, &t);
  libcurl::easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
  libcurl::easy_setopt(c, CURLOPT_XFERINFODATA, &ctx);
  libcurl::easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
  libcurl::easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
  CURLcode rc = libcurl::easy_perform(c);

  if (!t.refused_address.empty())
    return make_error(ErrorCode::permission_denied,
                      "connection to private/loopback address " + t.refused_address + " refused",
                      "$.url");
  if (rc == CURLE_FILESIZE_EXCEEDED) {
    t.truncated = true;
  } else if (rc == CURLE_OPERATION_TIMEDOUT) {
    return make_error(ErrorCode::deadline_exceeded,
                      "fetch timed out after " + std::to_string(tmo.count()) + " ms");
  } else if (rc == CURLE_ABORTED_BY_CALLBACK) {
    return make_error(ErrorCode::cancelled, "fetch cancelled");
  } else if (rc != CURLE_OK && !(rc == CURLE_WRITE_ERROR && t.truncated)) {
    return make_error(
        ErrorCode::unavailable,
        std::string("fetch failed: ") + (errbuf[0] ? errbuf : libcurl::easy_strerror(rc)));
  }
  long status = 0;
  libcurl::easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
  char* ctype = nullptr;
  libcurl::easy_getinfo(c, CURLINFO_CONTENT_TYPE, &ctype);
  std::string out =
      "HTTP " + std::to_string(status) + "\ncontent-type: " + (ctype ? ctype : "") + "\n\n";
  if (t.truncated && t.body.empty()) {
    out += "[body larger than the " + std::to_string(opt.fetch_max_bytes) +
           "-byte cap; not downloaded]\n";
  } else if (looks_binary(t.body)) {
    out += "[binary body, " + std::to_string(t.body.size()) + " bytes; not shown]\n";
  } else {
    std::string_view body = t.body;
    bool cut = body.size() > opt.max_output_bytes;
    out.append(utf8_prefix(body, opt.max_output_bytes));
    if (t.truncated)
      out += "\n[body truncated: larger than the " + std::to_string(opt.fetch_max_bytes) +
             "-byte cap]\n";
    else if (cut)
      out += "\n[body truncated at " + std::to_string(opt.max_output_bytes) + " bytes]\n";
  }
  ToolOutput o = ToolOutput::text(std::move(out));
  o.is_error = status >= 400;
  return o;
}

}  // namespace

ToolSpec fetch_spec(Ctx bc) {
  return spec(
      "fetch",
      "HTTP GET a URL (http or https only) and return the status, content type and text body. "
      "The body is capped in size and the request in time.",
      R"json({"type":"object","properties":{
    "url":{"type":"string","description":"Absolute http:// or https:// URL"}},
    "required":["url"],"additionalProperties":false})json",
      std::move(bc), do_fetch);
}

}  // namespace toolwire::tools::builtin
