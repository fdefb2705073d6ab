// json_escape.h — the JSON string escaper behind JsonWriter::append_escaped,
// per instruction set. Private to the library; tests compare every variant
// this CPU can run with a reference escaper.
#pragma once

#include <string>
#include <string_view>

namespace toolwire::detail {

enum class EscapeIsa {
  portable,  // SSE2 on x86-64 (part of its baseline), 8-byte SWAR elsewhere
  avx2,      // 32-byte blocks; chosen at run time when the CPU has AVX2
  avx512,    // AVX-512 VBMI2: a block's escapes inserted by one compress, no
             // per-escape loop; chosen when the CPU has it
};

// Whether this build and this CPU can run `isa`.
bool escape_isa_available(EscapeIsa isa);
// The ISA append_escaped uses here (the widest available).
EscapeIsa escape_isa_in_use();
// append_escaped with a given ISA (which must be available).
void append_escaped_with(EscapeIsa isa, std::string& out, std::string_view s);

}  // namespace toolwire::detail
