// The console's files (index.html, console.js, console.css), built into
// the binary by cmake/embed.cmake: GET /ui works offline, from one file.
#pragma once

#include <cstddef>
#include <string_view>

namespace toolwire::gateway::console {

struct Asset {
  std::string_view name;          // "index.html", "console.js", ...
  std::string_view content_type;  // with charset for text
  std::string_view body;
  std::string_view etag;  // quoted: "\"<20 hex of the SHA-256>\""
};

// Generated (console_assets.cc in the build tree).
extern const Asset kAssets[];
extern const size_t kAssetCount;

// The asset named `name`, or nullptr.
inline const Asset* find_asset(std::string_view name) {
  for (size_t i = 0; i < kAssetCount; ++i)
    if (kAssets[i].name == name) return &kAssets[i];
  return nullptr;
}

}  // namespace toolwire::gateway::console
