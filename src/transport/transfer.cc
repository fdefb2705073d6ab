// Easy-handle setup, libcurl's header/body callbacks, error mapping.
#include "transfer.h"

#include <algorithm>
#include <string_view>

#include "event_loop.h"
#include "toolwire/transport/redact.h"

namespace toolwire::transport::detail {

namespace {

bool is_token(std::string_view s) {
  if (s.empty()) return false;
  for (unsigned char c : s) {
    if (c <= 32 || c >= 127 ||
        std::string_view("\"(),/:;<=>?@[\\]{}").find(static_cast<char>(c)) !=
            std::string_view::npos)
      return false;
  }
  return true;
}

bool has_ctl(std::string_view s) {
  for (unsigned char c : s) {
    if (c == '\r' || c == '\n' || c == 0) return true;
  }
  return false;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() &&
         (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '\n'))
    s.remove_suffix(1);
  return s;
}

size_t on_header_line(char* data, size_t size, size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  size_t len = size * n;
  t->last_activity = Clock::now();
  std::string_view line(data, len);
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.remove_suffix(1);

  if (line.starts_with("HTTP/")) {  // a new status line: a fresh head (1xx ones are skipped below)
    t->head = HttpResponseHead{};
    size_t sp = line.find(' ');
    t->head.http_version = std::string(line.substr(0, sp));
    if (sp != std::string_view::npos) {
      std::string_view rest = line.substr(sp + 1);
      int status = 0;
      for (size_t i = 0; i < rest.size() && i < 3 && rest[i] >= '0' && rest[i] <= '9'; ++i)
        status = status * 10 + (rest[i] - '0');
      t->head.status = status;
    }
    return len;
  }
  if (line.empty()) {  // end of a header block
    if (t->head.status >= 100 && t->head.status < 200)
      return len;  // interim response (100 Continue)
    return t->loop->head_complete(*t) ? len : 0;
  }
  if ((line.front() == ' ' || line.front() == '\t') && !t->head.headers.empty()) {
    return len;  // obsolete line folding: ignored rather than guessed at
  }
  size_t colon = line.find(':');
  if (colon == std::string_view::npos) return len;
  t->head.headers.add(std::string(trim(line.substr(0, colon))),
                      std::string(trim(line.substr(colon + 1))));
  return len;
}

size_t on_body_bytes(char* data, size_t size, size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  size_t len = size * n;
  t->last_activity = Clock::now();
  if (!t->committed && !t->loop->head_complete(*t)) return CURL_WRITEFUNC_ERROR;
  if (len == 0) return 0;
  if (!t->paused && t->pause_wanted && t->pause_wanted->load(std::memory_order_acquire)) {
    t->paused = true;  // libcurl keeps this chunk and delivers it again at CURLPAUSE_CONT
    return CURL_WRITEFUNC_PAUSE;
  }
  if (!t->first_byte) {
    t->first_byte = true;
    t->stats.time_to_first_byte =
        std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - t->started);
  }
  t->stats.body_bytes += len;
  if (t->cb.on_body && !t->cb.on_body(std::string_view(data, len))) {
    t->abort = Transfer::Abort::callback;
    return CURL_WRITEFUNC_ERROR;
  }
  return len;
}

}  // namespace

Transfer::~Transfer() {
  if (easy) libcurl::easy_cleanup(easy);
  if (header_list) libcurl::slist_free_all(header_list);
}

std::string describe(const HttpRequest& req) { return req.method + " " + redact_url(req.url); }

Status setup_easy(Transfer& t, const HttpClientOptions& options) {
  const HttpRequest& req = t.req;
  if (!is_token(req.method)) return make_error(ErrorCode::invalid_argument, "invalid HTTP method");
  if (req.url.empty() || has_ctl(req.url))
    return make_error(ErrorCode::invalid_argument, "invalid URL");
  bool has_ua = false, has_ct = false;
  for (const auto& [name, value] : req.headers) {
    if (!is_token(name)) return make_error(ErrorCode::invalid_argument, "invalid header name");
    // Value is not echoed: it may be a key.
    if (has_ctl(value))
      return make_error(ErrorCode::invalid_argument,
                        "header '" + name + "' has a control character");
    has_ua |= iequals(name, "user-agent");
    has_ct |= iequals(name, "content-type");
  }

  if (!t.easy) t.easy = libcurl::easy_init();  // the loop may hand in a recycled, reset handle
  if (!t.easy) return make_error(ErrorCode::internal, "curl_easy_init failed");
  CURL* e = t.easy;
  libcurl::easy_setopt(e, CURLOPT_PRIVATE, &t);
  libcurl::easy_setopt(e, CURLOPT_URL, req.url.c_str());
  libcurl::easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
  libcurl::easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
  libcurl::easy_setopt(e, CURLOPT_ERRORBUFFER, t.errbuf);
  libcurl::easy_setopt(e, CURLOPT_HEADERFUNCTION, &on_header_line);
  libcurl::easy_setopt(e, CURLOPT_HEADERDATA, &t);
  libcurl::easy_setopt(e, CURLOPT_WRITEFUNCTION, &on_body_bytes);
  libcurl::easy_setopt(e, CURLOPT_WRITEDATA, &t);
  libcurl::easy_setopt(e, CURLOPT_SUPPRESS_CONNECT_HEADERS,
                       1L);  // a proxy's CONNECT reply is not the response
  libcurl::easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
  libcurl::easy_setopt(e, CURLOPT_BUFFERSIZE, options.receive_buffer);
  if (req.connect_timeout.count() > 0)
    libcurl::easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS,
                         static_cast<long>(req.connect_timeout.count()));
  if (!has_ua && !options.user_agent.empty())
    libcurl::easy_setopt(e, CURLOPT_USERAGENT, options.user_agent.c_str());
  if (!options.proxy.empty()) libcurl::easy_setopt(e, CURLOPT_PROXY, options.proxy.c_str());
  if (!options.ca_file.empty()) libcurl::easy_setopt(e, CURLOPT_CAINFO, options.ca_file.c_str());
  // TLS verification stays at libcurl's defaults: VERIFYPEER=1, VERIFYHOST=2.
  if (req.url.starts_with("https:"))
    libcurl::easy_setopt(e, CURLOPT_PIPEWAIT, 1L);  // prefer HTTP/2 multiplexing

  if (req.method == "GET") {
    libcurl::easy_setopt(e, CURLOPT_HTTPGET, 1L);
  } else if (req.method == "HEAD") {
    libcurl::easy_setopt(e, CURLOPT_NOBODY, 1L);
  } else {
    if (req.method != "POST") libcurl::easy_setopt(e, CURLOPT_CUSTOMREQUEST, req.method.c_str());
    if (req.method == "POST" || !req.body.empty()) {
      libcurl::easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE,
                           static_cast<curl_off_t>(req.body.size()));
      libcurl::easy_setopt(e, CURLOPT_POSTFIELDS, req.body.data());
    }
  }

  for (const auto& [name, value] : req.headers) {
    // "Name:" would delete a curl default header; "Name;" sends an empty value.
    std::string line = name + (value.empty() ? ";" : ": " + value);
    t.header_list = libcurl::slist_append(t.header_list, line.c_str());
  }
  t.header_list = libcurl::slist_append(t.header_list, "Expect:");  // no 100-continue round trip
  if (!has_ct)
    t.header_list =
        libcurl::slist_append(t.header_list, "Content-Type:");  // not curl's form default
  libcurl::easy_setopt(e, CURLOPT_HTTPHEADER, t.header_list);
  return Status::Ok();
}

bool is_retryable_curl_error(CURLcode code) {
  switch (code) {
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PARTIAL_FILE:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
    case CURLE_OPERATION_TIMEDOUT:  // only libcurl's connect timeout: deadlines are our own timers
      return true;
    default:
      return false;
  }
}

Error transfer_error(const Transfer& t, CURLcode code) {
  ErrorCode ec = ErrorCode::unavailable;
  switch (code) {
    case CURLE_URL_MALFORMAT:
    case CURLE_UNSUPPORTED_PROTOCOL:
      ec = ErrorCode::invalid_argument;
      break;
    case CURLE_OUT_OF_MEMORY:
      ec = ErrorCode::resource_exhausted;
      break;
    default:
      break;
  }
  std::string msg = describe(t.req) + ": " + libcurl::easy_strerror(code);
  if (t.errbuf[0] != '\0') msg += std::string(" (") + t.errbuf + ")";
  if (t.committed) {
    msg += "; the response was cut short after " + std::to_string(t.stats.body_bytes) +
           " body bytes (not retried)";
  } else if (t.stats.attempts > 1) {
    msg += "; gave up after " + std::to_string(t.stats.attempts) + " attempts";
  }
  msg = scrub_secrets(std::move(msg), t.req.headers);
  // The URL's query and userinfo may hold keys too (`?key=`, `user:pass@`).
  std::string_view url = t.req.url;
  for (std::string_view part : {url.substr(std::min(url.find('?'), url.size())),
                                url.substr(0, std::min(url.rfind('@'), url.size()))}) {
    if (part.size() < 4) continue;
    for (size_t pos; (pos = msg.find(part)) != std::string::npos;)
      msg.replace(pos, part.size(), "<redacted>");
  }
  return make_error(ec, std::move(msg));
}

}  // namespace toolwire::transport::detail
