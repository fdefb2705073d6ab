#include "toolwire/dialects/framing/sse.h"

#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace toolwire::dialects {

namespace {
// The first CR or LF in [p, end), or end: one pass for both line ends, 16
// bytes per step with SSE2.
const char* find_line_end(const char* p, const char* end) {
#if defined(__SSE2__)
  const __m128i lf = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r');
  while (end - p >= 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const unsigned m = static_cast<unsigned>(
        _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, lf), _mm_cmpeq_epi8(v, cr))));
    if (m) return p + __builtin_ctz(m);
    p += 16;
  }
#endif
  while (p < end && *p != '\n' && *p != '\r') ++p;
  return p;
}

// The vector form of feed(): copies each event out.
class CollectingSink final : public SseSink {
 public:
  explicit CollectingSink(std::vector<SseEvent>& out) : out_(out) {}
  Status on_event(SseEvent& event) override {
    out_.push_back(event);
    return Status::Ok();
  }

 private:
  std::vector<SseEvent>& out_;
};
}  // namespace

Status SseParser::feed(std::string_view bytes, std::vector<SseEvent>& out) {
  CollectingSink sink(out);
  return feed(bytes, sink);
}

Status SseParser::feed(std::string_view bytes, SseSink& sink) {
  if (failed_) return make_error(ErrorCode::parse_error, "SSE stream already failed");
  if (at_start_ && !bytes.empty()) {
    // Strip a UTF-8 BOM, which may itself arrive split across chunks.
    static constexpr std::string_view kBom = "\xEF\xBB\xBF";
    size_t n = 0;
    while (n < bytes.size() && line_.size() + n < 3 && bytes[n] == kBom[line_.size() + n]) ++n;
    if (line_.size() + n == 3) {
      line_.clear();
      bytes.remove_prefix(n);
      at_start_ = false;
    } else if (n == bytes.size()) {
      line_.append(bytes);  // still a possible BOM prefix
      return Status::Ok();
    } else {
      at_start_ = false;  // not a BOM: what we held back is ordinary data
    }
  }
  const char* p = bytes.data();
  const char* end = p + bytes.size();
  if (skip_lf_ && p < end) {
    if (*p == '\n') ++p;
    skip_lf_ = false;
  }
  while (p < end) {
    // Find the next line end (CR or LF) without revisiting buffered bytes.
    const char* q = find_line_end(p, end);
    if (q == end) {
      line_.append(p, q);
      if (line_.size() > max_event_bytes_) {
        failed_ = true;
        return make_error(ErrorCode::resource_exhausted, "SSE line exceeds size limit");
      }
      break;
    }
    Status st;
    if (line_.empty()) {
      st = process_line(std::string_view(p, q - p), sink);
    } else {
      line_.append(p, q);
      st = process_line(line_, sink);
      line_.clear();
    }
    if (!st) {
      failed_ = true;
      return st;
    }
    if (current_.data.size() > max_event_bytes_) {
      failed_ = true;
      return make_error(ErrorCode::resource_exhausted, "SSE event exceeds size limit");
    }
    if (*q == '\r') {
      if (q + 1 < end) {
        if (q[1] == '\n') ++q;
      } else {
        skip_lf_ = true;
      }
    }
    p = q + 1;
  }
  return Status::Ok();
}

Status SseParser::process_line(std::string_view line, SseSink& sink) {
  if (line.empty()) {  // dispatch
    if (last_event_id_ != id_buffer_) last_event_id_ = id_buffer_;
    Status st;
    if (has_data_) st = sink.on_event(current_);
    current_.event.clear();  // keeps the buffers' capacity for the next event
    current_.data.clear();
    has_data_ = false;
    return st;
  }
  if (line.front() == ':') return Status::Ok();  // comment
  std::string_view field = line, value;
  if (size_t colon = line.find(':'); colon != std::string_view::npos) {
    field = line.substr(0, colon);
    value = line.substr(colon + 1);
    if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  }
  if (field == "data") {
    if (has_data_) current_.data.push_back('\n');
    current_.data.append(value);
    has_data_ = true;
  } else if (field == "event") {
    current_.event.assign(value);
  } else if (field == "id") {
    if (value.find('\0') == std::string_view::npos) id_buffer_.assign(value);
  } else if (field == "retry") {
    if (!value.empty() && value.size() < 10 &&
        value.find_first_not_of("0123456789") == std::string_view::npos)
      retry_ms_ = std::stol(std::string(value));
  }
  // Unknown fields are ignored, as the SSE spec says.
  return Status::Ok();
}

}  // namespace toolwire::dialects
