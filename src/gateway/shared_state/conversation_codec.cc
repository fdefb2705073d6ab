#include "gateway/shared_state/conversation_codec.h"

#include <cstdint>
#include <cstring>

namespace toolwire::gateway::shared_state {
namespace {

constexpr char kMessages = 'M', kParts = 'P';
constexpr uint8_t kVersion = 1;
// More would not come from this encoder (the gateway's own limits are far
// below): a count past it is a corrupt value, not a reason to allocate.
constexpr uint32_t kMaxCount = 1'000'000;

enum Tag : uint8_t { text, image, tool_call, tool_result, thinking, unknown };

class Writer {
 public:
  explicit Writer(std::string& out) : out_(out) {}
  void u8(uint8_t v) { out_.push_back(static_cast<char>(v)); }
  void u32(uint32_t v) {
    char b[4];
    std::memcpy(b, &v, 4);  // little-endian hosts only write and read these
    out_.append(b, 4);
  }
  void str(std::string_view s) {
    u32(static_cast<uint32_t>(s.size()));
    out_.append(s);
  }

 private:
  std::string& out_;
};

class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  bool u8(uint8_t& v) {
    if (in_.empty()) return false;
    v = static_cast<uint8_t>(in_[0]);
    in_.remove_prefix(1);
    return true;
  }
  bool u32(uint32_t& v) {
    if (in_.size() < 4) return false;
    std::memcpy(&v, in_.data(), 4);
    in_.remove_prefix(4);
    return true;
  }
  bool count(uint32_t& v) { return u32(v) && v <= kMaxCount && v <= in_.size(); }
  bool str(std::string& s) {
    uint32_t n = 0;
    if (!u32(n) || n > in_.size()) return false;
    s.assign(in_.data(), n);
    in_.remove_prefix(n);
    return true;
  }
  bool flag(bool& b) {
    uint8_t v = 0;
    if (!u8(v) || v > 1) return false;
    b = v == 1;
    return true;
  }
  bool done() const { return in_.empty(); }

 private:
  std::string_view in_;
};

void put(Writer& w, const ir::TextPart& p) {
  w.u8(text);
  w.str(p.text);
}
void put(Writer& w, const ir::ImagePart& p) {
  w.u8(image);
  w.str(p.url);
  w.str(p.media_type);
  w.str(p.data);
  w.str(p.detail);
}
void put(Writer& w, const ir::UnknownPart& p) {
  w.u8(unknown);
  w.str(p.dialect);
  w.str(p.type);
  w.str(p.raw_json);
}
void put(Writer& w, const ir::ToolCallPart& p) {
  w.u8(tool_call);
  w.str(p.id);
  w.str(p.name);
  w.str(p.arguments);
  w.u8(p.arguments_valid);
  w.str(p.signature);
}
void put(Writer& w, const ir::ToolResultPart& p) {
  w.u8(tool_result);
  w.str(p.call_id);
  w.u8(p.is_error);
  w.u32(static_cast<uint32_t>(p.content.size()));
  for (const auto& c : p.content) std::visit([&](const auto& x) { put(w, x); }, c);
}
void put(Writer& w, const ir::ThinkingPart& p) {
  w.u8(thinking);
  w.str(p.text);
  w.str(p.signature);
  w.u8(p.redacted);
  w.str(p.redacted_data);
  w.str(p.item_id);
  w.str(p.encrypted_content);
}

void put_parts(Writer& w, const std::vector<ir::Part>& parts) {
  w.u32(static_cast<uint32_t>(parts.size()));
  for (const auto& p : parts) std::visit([&](const auto& x) { put(w, x); }, p);
}

// A leaf part (what a tool result may hold, and the same in a message).
template <class Out>
bool get_leaf(Reader& r, uint8_t tag, Out& out) {
  switch (tag) {
    case text: {
      ir::TextPart p;
      if (!r.str(p.text)) return false;
      out = std::move(p);
      return true;
    }
    case image: {
      ir::ImagePart p;
      if (!r.str(p.url) || !r.str(p.media_type) || !r.str(p.data) || !r.str(p.detail)) return false;
      out = std::move(p);
      return true;
    }
    case unknown: {
      ir::UnknownPart p;
      if (!r.str(p.dialect) || !r.str(p.type) || !r.str(p.raw_json)) return false;
      out = std::move(p);
      return true;
    }
    default:
      return false;
  }
}

bool get_part(Reader& r, ir::Part& out) {
  uint8_t tag = 0;
  if (!r.u8(tag)) return false;
  switch (tag) {
    case tool_call: {
      ir::ToolCallPart p;
      if (!r.str(p.id) || !r.str(p.name) || !r.str(p.arguments) || !r.flag(p.arguments_valid) ||
          !r.str(p.signature))
        return false;
      out = std::move(p);
      return true;
    }
    case tool_result: {
      ir::ToolResultPart p;
      uint32_t n = 0;
      if (!r.str(p.call_id) || !r.flag(p.is_error) || !r.count(n)) return false;
      p.content.reserve(n);
      for (uint32_t i = 0; i < n; ++i) {
        uint8_t t = 0;
        ir::ResultContent c;
        if (!r.u8(t) || !get_leaf(r, t, c)) return false;
        p.content.push_back(std::move(c));
      }
      out = std::move(p);
      return true;
    }
    case thinking: {
      ir::ThinkingPart p;
      if (!r.str(p.text) || !r.str(p.signature) || !r.flag(p.redacted) || !r.str(p.redacted_data) ||
          !r.str(p.item_id) || !r.str(p.encrypted_content))
        return false;
      out = std::move(p);
      return true;
    }
    default:
      return get_leaf(r, tag, out);
  }
}

bool get_parts(Reader& r, std::vector<ir::Part>& parts) {
  uint32_t n = 0;
  if (!r.count(n)) return false;
  parts.reserve(n);
  for (uint32_t i = 0; i < n; ++i) {
    ir::Part p;
    if (!get_part(r, p)) return false;
    parts.push_back(std::move(p));
  }
  return true;
}

bool header(Reader& r, char kind) {
  uint8_t k = 0, v = 0;
  return r.u8(k) && k == static_cast<uint8_t>(kind) && r.u8(v) && v == kVersion;
}

}  // namespace

std::string encode_messages(const std::vector<ir::Message>& messages) {
  std::string out;
  Writer w(out);
  w.u8(kMessages);
  w.u8(kVersion);
  w.u32(static_cast<uint32_t>(messages.size()));
  for (const auto& m : messages) {
    w.u8(static_cast<uint8_t>(m.role));
    w.str(m.name);
    put_parts(w, m.parts);
  }
  return out;
}

std::optional<std::vector<ir::Message>> decode_messages(std::string_view bytes) {
  Reader r(bytes);
  uint32_t n = 0;
  if (!header(r, kMessages) || !r.count(n)) return std::nullopt;
  std::vector<ir::Message> out;
  out.reserve(n);
  for (uint32_t i = 0; i < n; ++i) {
    ir::Message m;
    uint8_t role = 0;
    if (!r.u8(role) || role > static_cast<uint8_t>(ir::Role::tool) || !r.str(m.name) ||
        !get_parts(r, m.parts))
      return std::nullopt;
    m.role = static_cast<ir::Role>(role);
    out.push_back(std::move(m));
  }
  if (!r.done()) return std::nullopt;
  return out;
}

std::string encode_parts(const std::vector<ir::Part>& parts) {
  std::string out;
  Writer w(out);
  w.u8(kParts);
  w.u8(kVersion);
  put_parts(w, parts);
  return out;
}

std::optional<std::vector<ir::Part>> decode_parts(std::string_view bytes) {
  Reader r(bytes);
  std::vector<ir::Part> parts;
  if (!header(r, kParts) || !get_parts(r, parts) || !r.done()) return std::nullopt;
  return parts;
}

}  // namespace toolwire::gateway::shared_state
