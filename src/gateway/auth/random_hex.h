// random_hex.h — unguessable identifiers (session ids, resume tokens, response
// ids) from OpenSSL's CSPRNG, as lowercase hex.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace toolwire::gateway {

// `bytes` random bytes as 2 * `bytes` hex digits; nullopt when the CSPRNG has
// no entropy to give.
std::optional<std::string> random_hex(size_t bytes);

// random_hex, or abort: a token that guards a session must never be guessable.
std::string secret_hex(size_t bytes);

}  // namespace toolwire::gateway
