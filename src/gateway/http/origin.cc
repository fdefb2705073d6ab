#include "gateway/http/origin.h"

#include <algorithm>

namespace toolwire::gateway::http {

bool local_origin(std::string_view o) {
  for (std::string_view scheme : {"http://", "https://"}) {
    if (!o.starts_with(scheme)) continue;
    std::string_view host = o.substr(scheme.size());
    for (std::string_view h : {"localhost", "127.0.0.1", "[::1]"}) {
      if (!host.starts_with(h)) continue;
      std::string_view rest = host.substr(h.size());
      if (rest.empty()) return true;
      if (rest.front() != ':' || rest.size() == 1) return false;
      return rest.substr(1).find_first_not_of("0123456789") == std::string_view::npos;
    }
  }
  return false;
}

bool origin_allowed(std::string_view origin, const std::vector<std::string>& allowed) {
  if (origin.empty()) return true;  // not a browser
  if (allowed.empty()) return local_origin(origin);
  return std::find(allowed.begin(), allowed.end(), origin) != allowed.end();
}

}  // namespace toolwire::gateway::http
