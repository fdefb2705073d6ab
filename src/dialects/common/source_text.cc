#include "dialects/common/source_text.h"

#include <algorithm>
#include <cstring>

namespace toolwire::dialects::json {

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

// Tape words a structural character starts (see SourceIndex::build).
constexpr auto kStep = [] {
  struct T {
    unsigned char v[256];
  } t{};
  for (auto& v : t.v) v = 1;
  t.v[static_cast<unsigned char>(',')] = 0;
  t.v[static_cast<unsigned char>(':')] = 0;
  t.v[static_cast<unsigned char>('-')] = 2;
  for (char c = '0'; c <= '9'; ++c) t.v[static_cast<unsigned char>(c)] = 2;
  return t;
}();

thread_local SourceIndex tls_remembered;

void append_without_line_breaks(std::string& out, std::string_view slice) {
  if (!std::memchr(slice.data(), '\n', slice.size()) &&
      !std::memchr(slice.data(), '\r', slice.size())) {
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

void SourceIndex::reset(const simdjson::dom::parser& parser, std::string_view text) {
  doc_ = &parser.doc;
  parser_ = &parser;
  text_ = text;
  built_ = false;
  usable_ = false;
}

// One pass over the structurals. ',' and ':' start no tape entry; a number
// starts one two words long; every other structural starts a one-word entry.
// The step comes from a table, so the loop has no branch and no dependency on
// what it loads.
void SourceIndex::build() {
  built_ = true;
  const auto& impl = *parser_->implementation;
  const uint32_t* idx = impl.structural_indexes.get();
  const size_t n = impl.n_structural_indexes;
  const uint64_t* tape = doc_->tape.get();
  if (!idx || !tape || n == 0) return;
  // Stage 1's offsets rise: checking the last one bounds them all.
  if (idx[n - 1] >= text_.size()) return;
  const size_t root_end =
      (tape[0] & kPayload) - 1;  // the closing root word (tape[0] points past it)
  // Every structural moves t by at most 2, so 2n + 2 slots hold any walk and
  // the loop needs no bounds check; a walk that does not end on the root's
  // closing word means the layout was not the expected one.
  // Not zero-filled: the walk writes every slot an element of the document
  // can name, and no query reads past them (a document's elements only).
  offset_size_ = std::max(root_end + 2, 2 * n + 2);
  if (offset_size_ > offset_capacity_) {
    offset_capacity_ = std::max(offset_size_, 2 * offset_capacity_);
    offset_.reset(new uint32_t[offset_capacity_]);
  }
  const auto* bytes = reinterpret_cast<const unsigned char*>(text_.data());
  uint32_t* out = offset_.get();
  size_t t = 1;
  for (size_t s = 0; s < n; ++s) {
    const uint32_t off = idx[s];
    out[t] = off;
    t += kStep.v[bytes[off]];
  }
  usable_ = t == root_end;
}

bool SourceIndex::index_of(simdjson::dom::element e, size_t& tape_index) {
  const simdjson::internal::tape_ref& ref = e.*member(ElementTape{});
  if (ref.doc != doc_ || doc_ == nullptr) return false;
  if (!built_) build();
  if (!usable_) return false;
  tape_index = ref.json_index;
  return tape_index > 0 && tape_index < offset_size_;
}

bool SourceIndex::offset(simdjson::dom::element e, size_t& at) {
  size_t t;
  if (!index_of(e, t)) return false;
  at = offset_[t];
  return true;
}

bool SourceIndex::range(simdjson::dom::element e, size_t& begin, size_t& end) {
  size_t t;
  if (!index_of(e, t)) return false;
  const uint64_t word = doc_->tape[t];
  const auto type = static_cast<unsigned char>(word >> 56);
  if (type != '{' && type != '[') return false;
  const size_t close = (word & 0xFFFFFFFFull) - 1;  // the '{' word points one past its '}'
  if (close >= offset_size_ || close <= t) return false;
  const uint32_t first = offset_[t], last = offset_[close];
  const char close_char = type == '{' ? '}' : ']';
  if (last < first || last >= text_.size() || text_[first] != static_cast<char>(type) ||
      text_[last] != close_char)
    return false;
  begin = first;
  end = size_t{last} + 1;
  return true;
}

void remember_source(const simdjson::dom::parser& parser, std::string_view text) {
  tls_remembered.reset(parser, text);
}

bool source_range(simdjson::dom::element e, size_t& begin, size_t& end) {
  return tls_remembered.range(e, begin, end);
}

bool append_source(std::string& out, simdjson::dom::element e) {
  size_t begin, end;
  if (!tls_remembered.range(e, begin, end)) return false;
  append_without_line_breaks(out, tls_remembered.text().substr(begin, end - begin));
  return true;
}

}  // namespace toolwire::dialects::json

namespace toolwire::dialects::json {

bool source_slice(simdjson::dom::element e, std::string_view& out) {
  size_t begin, end;
  if (!source_range(e, begin, end)) return false;
  std::string_view slice = tls_remembered.text().substr(begin, end - begin);
  if (std::memchr(slice.data(), '\n', slice.size()) ||
      std::memchr(slice.data(), '\r', slice.size()))
    return false;
  out = slice;
  return true;
}

}  // namespace toolwire::dialects::json
