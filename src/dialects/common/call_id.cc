#include "dialects/common/call_id.h"

namespace toolwire::dialects::call_id {
namespace {

constexpr std::string_view kPrefix = "tw-";

// Bytes of ^[a-zA-Z0-9_-]+$: 1 for word characters, 2 for '-'. A table,
// because every call id of a translated request is checked.
constexpr auto kIdByte = [] {
  struct T {
    unsigned char v[256];
  } t{};
  for (int c = 0; c < 256; ++c)
    t.v[c] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  t.v[static_cast<unsigned char>('-')] = 2;
  return t;
}();

bool is_word(unsigned char c) { return kIdByte.v[c] == 1; }

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;  // upper-case hex is never produced, so it is not an encoding
}

}  // namespace

bool is_anthropic_valid(std::string_view id) {
  if (id.empty()) return false;
  bool ok = true;
  for (unsigned char c : id)
    ok &= kIdByte.v[c] != 0;  // no early exit: ids are short and usually valid
  return ok;
}

bool needs_mapping(std::string_view id) {
  if (id.empty()) return false;
  return !is_anthropic_valid(id) || id.substr(0, kPrefix.size()) == kPrefix;
}

std::string_view to_anthropic(std::string_view id, std::string& scratch) {
  if (!needs_mapping(id)) return id;
  scratch = to_anthropic(id);
  return scratch;
}

std::string to_anthropic(std::string_view id) {
  if (!needs_mapping(id)) return std::string(id);
  static constexpr char hex[] = "0123456789abcdef";
  std::string out;
  out.reserve(kPrefix.size() + id.size() * 2);
  out.append(kPrefix);
  for (unsigned char c : id) {
    if (is_word(c)) {
      out.push_back(static_cast<char>(c));
    } else if (c == '-') {
      out.append("--");
    } else {
      out.push_back('-');
      out.push_back(hex[c >> 4]);
      out.push_back(hex[c & 15]);
    }
  }
  return out;
}

std::string_view from_anthropic(std::string_view id, std::string& scratch) {
  if (id.substr(0, kPrefix.size()) != kPrefix) return id;
  scratch = from_anthropic(id);
  if (scratch == id) return id;
  return scratch;
}

std::string from_anthropic(std::string_view id) {
  if (id.substr(0, kPrefix.size()) != kPrefix) return std::string(id);
  std::string out;
  out.reserve(id.size());
  for (size_t i = kPrefix.size(); i < id.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(id[i]);
    if (is_word(c)) {
      out.push_back(static_cast<char>(c));
      continue;
    }
    if (c != '-' || i + 1 >= id.size()) return std::string(id);
    if (id[i + 1] == '-') {
      out.push_back('-');
      ++i;
      continue;
    }
    if (i + 2 >= id.size()) return std::string(id);
    const int hi = hex_value(id[i + 1]), lo = hex_value(id[i + 2]);
    if (hi < 0 || lo < 0) return std::string(id);
    out.push_back(static_cast<char>(hi * 16 + lo));
    i += 2;
  }
  // Only the canonical encoding of some id decodes (e.g. "tw-abc" is not one:
  // "abc" would pass unchanged), which keeps the mapping a bijection on its image.
  if (to_anthropic(out) != id) return std::string(id);
  return out;
}

}  // namespace toolwire::dialects::call_id
