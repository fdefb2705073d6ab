// A stored answer's bytes in Redis: a conversation (messages) or one item's
// parts, in a compact binary form of the IR (length-prefixed strings, one
// tag byte per part; a version byte first). Lossless for every part type.
// What is read back is checked as untrusted input: a truncated, corrupt or
// foreign value gives nullopt, never a crash.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "toolwire/ir/message.h"

namespace toolwire::gateway::shared_state {

std::string encode_messages(const std::vector<ir::Message>& messages);
std::optional<std::vector<ir::Message>> decode_messages(std::string_view bytes);

std::string encode_parts(const std::vector<ir::Part>& parts);
std::optional<std::vector<ir::Part>> decode_parts(std::string_view bytes);

}  // namespace toolwire::gateway::shared_state
