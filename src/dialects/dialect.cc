// Lookups over the dialect list (the list itself: src/dialects/dialects.cc),
// the URL template and the header auth hook.
#include "toolwire/dialects/dialect.h"

namespace toolwire::dialects {

void header_auth(const AuthRequest& request, HeaderList& out) {
  if (request.header.empty() || request.key.empty()) return;
  std::string value;
  value.reserve(request.prefix.size() + request.key.size());
  value.append(request.prefix).append(request.key);
  out.emplace_back(std::string(request.header), std::move(value));
}

const Dialect* find_dialect(std::string_view name) {
  for (const Dialect& d : all_dialects())
    if (d.name == name || (!d.alias.empty() && d.alias == name)) return &d;
  return nullptr;
}

const Dialect* dialect_of(const Codec& codec) {
  for (const Dialect& d : all_dialects())
    if (d.codec && &d.codec() == &codec) return &d;
  return nullptr;
}

std::string dialect_names(bool (*pred)(const Dialect&), std::string_view separator) {
  std::string out;
  for (const Dialect& d : all_dialects()) {
    if (pred && !pred(d)) continue;
    if (!out.empty()) out.append(separator);
    out.append(d.alias.empty() ? d.name : d.alias);
  }
  return out;
}

std::string url_for(std::string_view base, std::string_view path, std::string_view model) {
  while (!base.empty() && base.back() == '/') base.remove_suffix(1);
  std::string out(base);
  constexpr std::string_view kModel = "{model}";
  for (size_t at = path.find(kModel); at != std::string_view::npos; at = path.find(kModel)) {
    out.append(path.substr(0, at));
    // A path segment: unreserved characters stay, everything else is %XX.
    for (unsigned char c : model) {
      bool unreserved = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                        (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' || c == '~';
      if (unreserved) {
        out.push_back(static_cast<char>(c));
      } else {
        constexpr char kHex[] = "0123456789ABCDEF";
        out.push_back('%');
        out.push_back(kHex[c >> 4]);
        out.push_back(kHex[c & 15]);
      }
    }
    path.remove_prefix(at + kModel.size());
  }
  out.append(path);
  return out;
}

}  // namespace toolwire::dialects
