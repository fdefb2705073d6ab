// metadata_member.h — a request `metadata` object of fixed members.
//
// Anthropic's `metadata` takes `user_id` alone and refuses any other member
// with a 400. Another dialect's metadata (OpenAI's free string map) is cut to
// that member; each other member is dropped with a `dropped_metadata` warning.
#pragma once

#include <string_view>

#include "toolwire/core/json_writer.h"
#include "toolwire/core/warnings.h"

namespace toolwire::dialects {

// Writes `"metadata": {"<member>": <value>}` when `metadata` (a JSON object)
// has a string `member`; nothing when it has not. Every other member, and a
// `member` that is not a string, goes into a warning that says `why`.
void write_metadata_member(JsonWriter& w, std::string_view metadata, std::string_view member,
                           std::string_view why, Warnings& warnings);

}  // namespace toolwire::dialects
