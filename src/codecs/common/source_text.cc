#include "codecs/common/source_text.h"

#include <cstdint>
#include <cstring>
#include <vector>

namespace toolwire::codec::json {

namespace {

// simdjson::dom::element keeps its tape position private. This is the
// standard-conforming way to name a private member: an explicit template
// instantiation may take its address, and the friend function hands it out.
template <class Tag, typename Tag::type Member>
struct Expose {
  friend typename Tag::type member(Tag) { return Member; }
};
struct ElementTape {
  using type = simdjson::internal::tape_ref simdjson::dom::element::*;
  friend type member(ElementTape);
};
template struct Expose<ElementTape, &simdjson::dom::element::tape>;

constexpr uint64_t kPayload = 0x00FFFFFFFFFFFFFFull;

// Tape words a structural character starts (see SourceMap::build).
constexpr auto kStep = [] {
  struct T { unsigned char v[256]; } t{};
  for (auto& v : t.v) v = 1;
  t.v[static_cast<unsigned char>(',')] = 0;
  t.v[static_cast<unsigned char>(':')] = 0;
  t.v[static_cast<unsigned char>('-')] = 2;
  for (char c = '0'; c <= '9'; ++c) t.v[static_cast<unsigned char>(c)] = 2;
  return t;
}();

struct SourceMap {
  const simdjson::dom::document* doc = nullptr;
  const simdjson::dom::parser* parser = nullptr;
  std::string_view text;
  bool built = false;
  bool usable = false;
  std::vector<uint32_t> offset;  // tape index → source offset of the entry's first byte

  // One pass over the structurals. ',' and ':' start no tape entry; a number
  // starts one two words long; every other structural starts a one-word
  // entry. The step comes from a table, so the loop has no branch and no
  // dependency on what it loads.
  void build() {
    built = true;
    const auto& impl = *parser->implementation;
    const uint32_t* idx = impl.structural_indexes.get();
    const size_t n = impl.n_structural_indexes;
    const uint64_t* tape = doc->tape.get();
    if (!idx || !tape) return;
    const size_t root_end = (tape[0] & kPayload) - 1;  // the closing root word (tape[0] points past it)
    offset.resize(root_end + 2);  // +2: a trailing number may write one word past its entry
    const auto* bytes = reinterpret_cast<const unsigned char*>(text.data());
    size_t t = 1;
    for (size_t s = 0; s < n; ++s) {
      const uint32_t off = idx[s];
      if (off >= text.size() || t > root_end) return;
      offset[t] = off;
      t += kStep.v[bytes[off]];
    }
    usable = t == root_end;
  }
};

thread_local SourceMap tls_map;

void append_without_line_breaks(std::string& out, std::string_view slice) {
  if (!std::memchr(slice.data(), '\n', slice.size()) && !std::memchr(slice.data(), '\r', slice.size())) {
    out.append(slice);
    return;
  }
  const size_t base = out.size();
  bool ok = false;
  out.resize_and_overwrite(base + slice.size(), [&](char* buf, size_t) {
    size_t written = 0;
    ok = !simdjson::minify(slice.data(), slice.size(), buf + base, written);
    return ok ? base + written : base;
  });
  if (!ok) out.append(slice);  // cannot happen for a validated document; keep the bytes
}

}  // namespace

void remember_source(const simdjson::dom::parser& parser, std::string_view text) {
  tls_map.doc = &parser.doc;
  tls_map.parser = &parser;
  tls_map.text = text;
  tls_map.built = false;
  tls_map.usable = false;
}

bool source_range(simdjson::dom::element e, size_t& begin, size_t& end) {
  const simdjson::internal::tape_ref& ref = e.*member(ElementTape{});
  SourceMap& map = tls_map;
  if (ref.doc != map.doc || map.doc == nullptr) return false;
  const uint64_t* tape = map.doc->tape.get();
  const size_t t = ref.json_index;
  const auto type = static_cast<unsigned char>(tape[t] >> 56);
  if (type != '{' && type != '[') return false;
  if (!map.built) map.build();
  if (!map.usable) return false;
  const size_t close = (tape[t] & 0xFFFFFFFFull) - 1;  // the '{' word points one past its '}'
  if (t == 0 || close >= map.offset.size() || close <= t) return false;
  const uint32_t first = map.offset[t], last = map.offset[close];
  const char open_char = type == '{' ? '{' : '[';
  const char close_char = type == '{' ? '}' : ']';
  if (last < first || last >= map.text.size() || map.text[first] != open_char || map.text[last] != close_char)
    return false;
  begin = first;
  end = size_t{last} + 1;
  return true;
}

bool append_source(std::string& out, simdjson::dom::element e) {
  size_t begin, end;
  if (!source_range(e, begin, end)) return false;
  append_without_line_breaks(out, tls_map.text.substr(begin, end - begin));
  return true;
}

}  // namespace toolwire::codec::json
