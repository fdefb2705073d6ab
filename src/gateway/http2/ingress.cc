#include "gateway/http2/ingress.h"

#include <boost/beast/http/field.hpp>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <vector>

namespace toolwire::gateway::http2 {

namespace bhttp = boost::beast::http;

struct Ingress::StreamState {
  int32_t id = 0;
  std::string method, path, authority;
  bhttp::fields fields;
  size_t header_bytes = 0;
  std::string body;
  int status = 0;  // an error the request is answered with
  std::string message;
  bool complete = false;  // the whole request arrived
  bool answered = false;  // the head was submitted
  bool eof = false;       // the answer's last byte is in `out`
  std::string out;        // answer bytes the peer's window has not taken yet
  size_t out_off = 0;
};

namespace {

Ingress* self(void* user) { return static_cast<Ingress*>(user); }

// RFC 9113 section 8.2.2: connection-specific fields are not sent.
bool connection_specific(std::string_view name) {
  return name == "connection" || name == "keep-alive" || name == "transfer-encoding" ||
         name == "upgrade" || name == "proxy-connection";
}

nghttp2_nv nv(const std::string& name, const std::string& value) {
  return {reinterpret_cast<uint8_t*>(const_cast<char*>(name.data())),
          reinterpret_cast<uint8_t*>(const_cast<char*>(value.data())), name.size(), value.size(),
          NGHTTP2_NV_FLAG_NONE};
}

}  // namespace

Ingress::Ingress(IngressLimits limits, OnRequest on_request, OnGone on_gone, OnSent on_sent)
    : limits_(limits),
      on_request_(std::move(on_request)),
      on_gone_(std::move(on_gone)),
      on_sent_(std::move(on_sent)) {
  nghttp2_session_callbacks* cb = nullptr;
  nghttp2_session_callbacks_new(&cb);
  nghttp2_session_callbacks_set_on_begin_headers_callback(cb, &Ingress::on_begin_headers);
  nghttp2_session_callbacks_set_on_header_callback(cb, &Ingress::on_header);
  nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cb, &Ingress::on_data_chunk);
  nghttp2_session_callbacks_set_on_frame_recv_callback(cb, &Ingress::on_frame_recv);
  nghttp2_session_callbacks_set_on_stream_close_callback(cb, &Ingress::on_stream_close);
  nghttp2_session_server_new(&session_, cb, this);
  nghttp2_session_callbacks_del(cb);
  nghttp2_settings_entry settings[] = {
      {NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, limits_.max_streams},
      {NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE, static_cast<uint32_t>(limits_.max_header_bytes)},
  };
  nghttp2_submit_settings(session_, NGHTTP2_FLAG_NONE, settings, std::size(settings));
}

Ingress::~Ingress() { nghttp2_session_del(session_); }

Ingress::StreamState* Ingress::find(int32_t id) const {
  auto it = streams_.find(id);
  return it == streams_.end() ? nullptr : it->second.get();
}

bool Ingress::upgrade(std::string_view settings, http::Request&& r) {
  if (nghttp2_session_upgrade2(session_, reinterpret_cast<const uint8_t*>(settings.data()),
                               settings.size(), r.method == bhttp::verb::head, nullptr) != 0)
    return false;
  auto s = std::make_unique<StreamState>();
  s->id = 1;
  s->complete = true;
  streams_[1] = std::move(s);
  r.version = 20;
  on_request_(1, std::move(r), 0, {});
  return true;
}

bool Ingress::feed(const uint8_t* data, size_t n) {
  return nghttp2_session_mem_recv(session_, data, n) >= 0;
}

void Ingress::output(std::string& out) {
  for (;;) {
    const uint8_t* p = nullptr;
    ssize_t n = nghttp2_session_mem_send(session_, &p);
    if (n <= 0) break;
    out.append(reinterpret_cast<const char*>(p), static_cast<size_t>(n));
  }
  // After the send, not from inside it: a producer told its bytes went out
  // may write again at once.
  std::vector<std::pair<int32_t, size_t>> sent;
  for (auto& [id, s] : streams_)
    if (s->answered && s->out_off > 0) {
      s->out.erase(0, s->out_off);
      s->out_off = 0;
      sent.emplace_back(id, s->out.size());
    }
  for (auto [id, queued] : sent) on_sent_(id, queued);
}

bool Ingress::respond(int32_t id, int status, std::string_view content_type,
                      const http::Headers& headers, std::optional<std::string_view> body) {
  StreamState* s = find(id);
  if (!s || s->answered) return false;
  std::vector<std::string> text;
  text.reserve(4 + 2 * headers.size());
  text.emplace_back(":status");
  text.emplace_back(std::to_string(status));
  text.emplace_back("content-type");
  text.emplace_back(content_type);
  for (const auto& [k, v] : headers) {
    std::string name = k;
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (connection_specific(name)) continue;
    text.push_back(std::move(name));
    text.push_back(v);
  }
  std::vector<nghttp2_nv> nva;
  nva.reserve(text.size() / 2);
  for (size_t i = 0; i + 1 < text.size(); i += 2) nva.push_back(nv(text[i], text[i + 1]));
  s->answered = true;
  nghttp2_data_provider provider{};
  provider.source.ptr = s;
  provider.read_callback = &Ingress::read_body;
  if (body) {
    s->out.assign(*body);
    s->eof = true;
  }
  // nghttp2 copies the names and values.
  int rv = nghttp2_submit_response(session_, id, nva.data(), nva.size(),
                                   body && body->empty() ? nullptr : &provider);
  return rv == 0;
}

void Ingress::write(int32_t id, std::string_view bytes) {
  StreamState* s = find(id);
  if (!s || !s->answered || s->eof || bytes.empty()) return;
  s->out.append(bytes);
  nghttp2_session_resume_data(session_, id);
}

void Ingress::finish(int32_t id) {
  StreamState* s = find(id);
  if (!s || !s->answered || s->eof) return;
  s->eof = true;
  nghttp2_session_resume_data(session_, id);
}

void Ingress::reset(int32_t id) {
  if (find(id)) nghttp2_submit_rst_stream(session_, NGHTTP2_FLAG_NONE, id, NGHTTP2_INTERNAL_ERROR);
}

size_t Ingress::queued(int32_t id) const {
  StreamState* s = find(id);
  return s ? s->out.size() - s->out_off : 0;
}

void Ingress::shutdown() {
  nghttp2_submit_goaway(session_, NGHTTP2_FLAG_NONE,
                        nghttp2_session_get_last_proc_stream_id(session_), NGHTTP2_NO_ERROR,
                        nullptr, 0);
}

bool Ingress::done() const {
  return !nghttp2_session_want_read(session_) && !nghttp2_session_want_write(session_);
}

bool Ingress::reading_request() const {
  return std::any_of(streams_.begin(), streams_.end(),
                     [](const auto& kv) { return !kv.second->complete; });
}

// ---- nghttp2 callbacks -------------------------------------------------------

int Ingress::on_begin_headers(nghttp2_session*, const nghttp2_frame* frame, void* user) {
  if (frame->hd.type != NGHTTP2_HEADERS || frame->headers.cat != NGHTTP2_HCAT_REQUEST) return 0;
  auto s = std::make_unique<StreamState>();
  s->id = frame->hd.stream_id;
  self(user)->streams_[s->id] = std::move(s);
  return 0;
}

int Ingress::on_header(nghttp2_session*, const nghttp2_frame* frame, const uint8_t* name,
                       size_t namelen, const uint8_t* value, size_t valuelen, uint8_t, void* user) {
  if (frame->hd.type != NGHTTP2_HEADERS || frame->headers.cat != NGHTTP2_HCAT_REQUEST) return 0;
  Ingress& I = *self(user);
  StreamState* s = I.find(frame->hd.stream_id);
  if (!s || s->status) return 0;
  std::string_view n(reinterpret_cast<const char*>(name), namelen);
  std::string_view v(reinterpret_cast<const char*>(value), valuelen);
  s->header_bytes += namelen + valuelen + 32;  // RFC 9113's accounting of a field
  if (s->header_bytes > I.limits_.max_header_bytes) {
    s->status = 431;
    s->message = "request headers exceed " + std::to_string(I.limits_.max_header_bytes) + " bytes";
    s->fields.clear();
    return 0;
  }
  if (n == ":method")
    s->method = v;
  else if (n == ":path")
    s->path = v;
  else if (n == ":authority")
    s->authority = v;
  else if (!n.empty() && n.front() != ':')
    s->fields.insert(boost::beast::string_view(n.data(), n.size()),
                     boost::beast::string_view(v.data(), v.size()));
  return 0;
}

int Ingress::on_data_chunk(nghttp2_session*, uint8_t, int32_t id, const uint8_t* data, size_t len,
                           void* user) {
  Ingress& I = *self(user);
  StreamState* s = I.find(id);
  if (!s || s->status) return 0;
  if (s->body.size() + len > I.limits_.max_body_bytes) {
    s->status = 413;
    s->message = "request body exceeds " + std::to_string(I.limits_.max_body_bytes) + " bytes";
    std::string().swap(s->body);
    return 0;
  }
  s->body.append(reinterpret_cast<const char*>(data), len);
  return 0;
}

int Ingress::on_frame_recv(nghttp2_session*, const nghttp2_frame* frame, void* user) {
  if (frame->hd.type != NGHTTP2_HEADERS && frame->hd.type != NGHTTP2_DATA) return 0;
  if (!(frame->hd.flags & NGHTTP2_FLAG_END_STREAM)) return 0;
  Ingress& I = *self(user);
  StreamState* s = I.find(frame->hd.stream_id);
  if (s && !s->complete) I.request_complete(*s);
  return 0;
}

int Ingress::on_stream_close(nghttp2_session*, int32_t id, uint32_t, void* user) {
  Ingress& I = *self(user);
  auto it = I.streams_.find(id);
  if (it == I.streams_.end()) return 0;
  // Closed before its answer's last byte went out: the client is gone.
  bool cut = !(it->second->eof && it->second->out.size() == it->second->out_off);
  bool dispatched = it->second->complete;
  I.streams_.erase(it);
  if (dispatched) I.on_gone_(id, cut);
  return 0;
}

ssize_t Ingress::read_body(nghttp2_session*, int32_t, uint8_t* buf, size_t length, uint32_t* flags,
                           nghttp2_data_source* source, void*) {
  auto* s = static_cast<StreamState*>(source->ptr);
  size_t left = s->out.size() - s->out_off;
  if (left == 0) {
    if (s->eof) {
      *flags |= NGHTTP2_DATA_FLAG_EOF;
      return 0;
    }
    return NGHTTP2_ERR_DEFERRED;  // write() / finish() resume it
  }
  size_t n = std::min(length, left);
  std::memcpy(buf, s->out.data() + s->out_off, n);
  s->out_off += n;
  if (s->eof && s->out_off == s->out.size()) *flags |= NGHTTP2_DATA_FLAG_EOF;
  return static_cast<ssize_t>(n);
}

void Ingress::request_complete(StreamState& s) {
  s.complete = true;
  http::Request r;
  int status = s.status;
  std::string message = std::move(s.message);
  if (!status && (s.method.empty() || s.path.empty())) {
    status = 400;
    message = "malformed HTTP/2 request: no :method or :path";
  }
  r.method = bhttp::string_to_verb(s.method);
  r.method_text = std::move(s.method);
  r.target = std::move(s.path);
  r.version = 20;
  r.keep_alive = true;
  if (!s.authority.empty() && s.fields.find(bhttp::field::host) == s.fields.end())
    s.fields.set(bhttp::field::host, s.authority);
  r.headers = std::move(s.fields);
  r.body = std::move(s.body);
  r.received = http::Clock::now();
  on_request_(s.id, std::move(r), status, message);
}

}  // namespace toolwire::gateway::http2
