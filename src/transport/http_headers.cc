// HttpHeaders: ordered fields with case-insensitive names.
#include <algorithm>

#include "toolwire/transport/http_types.h"

namespace toolwire::transport {

namespace {
char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }
}  // namespace

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

void HttpHeaders::set(std::string_view name, std::string value) {
  remove(name);
  entries_.emplace_back(std::string(name), std::move(value));
}

void HttpHeaders::remove(std::string_view name) {
  std::erase_if(entries_, [&](const Entry& e) { return iequals(e.first, name); });
}

std::optional<std::string_view> HttpHeaders::get(std::string_view name) const {
  for (const auto& e : entries_) {
    if (iequals(e.first, name)) return std::string_view(e.second);
  }
  return std::nullopt;
}

}  // namespace toolwire::transport
