// source_text.h — the source bytes of a parsed object or array, without
// re-serializing it. Private to the codecs.
//
// simdjson 3.0.1's DOM keeps no source positions and has no raw_json(). But
// its stage 1 leaves the offset of every structural character in the parser,
// and the tape lists the document's values in the same order. One branch-free
// pass over the structurals (only on the first request for a document) maps
// each tape entry to its source offset, so an opaque value (a tool schema, a
// tool input, an unknown block) is copied as a slice of the source instead of
// being walked and re-escaped.
//
//   json::parse(parser, text);                  // remembers text for parser.doc
//   json::append_source(out, element);          // false: not available, re-serialize
//
// The slice is the source text with its insignificant whitespace: spaces stay,
// line breaks (which valid JSON can only have between tokens) are removed so
// the text can sit in an SSE data line. Only the last document parsed through
// json::parse on this thread is remembered; any other element returns false.
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace toolwire::dialects::json {

// Source offsets of one parsed document's values.
class SourceIndex {
 public:
  // `parser` has just parsed `text` successfully; both must outlive the queries.
  void reset(const simdjson::dom::parser& parser, std::string_view text);

  // Where `e` (any type) starts in the source; false if `e` is not of this document.
  bool offset(simdjson::dom::element e, size_t& at);
  // The byte range [begin, end) of an object or array; false for other elements.
  bool range(simdjson::dom::element e, size_t& begin, size_t& end);

  std::string_view text() const { return text_; }

 private:
  bool index_of(simdjson::dom::element e, size_t& tape_index);
  void build();

  const simdjson::dom::document* doc_ = nullptr;
  const simdjson::dom::parser* parser_ = nullptr;
  std::string_view text_;
  bool built_ = false;
  bool usable_ = false;
  // Tape index → source offset of the entry's first byte; kept between
  // documents (each parse on the thread reuses it).
  std::unique_ptr<uint32_t[]> offset_;
  size_t offset_size_ = 0;
  size_t offset_capacity_ = 0;
};

// Called by json::parse after a successful parse of `text` into `parser`.
void remember_source(const simdjson::dom::parser& parser, std::string_view text);

// Appends the source text of an object or array element of the remembered
// document; returns false (appending nothing) for other elements.
bool append_source(std::string& out, simdjson::dom::element e);

// The byte range [begin, end) an object or array of the remembered document
// occupies in its source text; false for other elements.
bool source_range(simdjson::dom::element e, size_t& begin, size_t& end);

// The source text of an object or array of the remembered document, as a
// view, when it has no line breaks; false otherwise (the caller minifies).
bool source_slice(simdjson::dom::element e, std::string_view& out);

}  // namespace toolwire::dialects::json
