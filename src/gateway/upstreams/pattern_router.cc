#include "toolwire/gateway/routing.h"

namespace toolwire::gateway {

bool glob_match(std::string_view p, std::string_view t) {
  // Iterative matcher with one backtrack point: linear in practice, no recursion.
  size_t pi = 0, ti = 0, star = std::string_view::npos, mark = 0;
  while (ti < t.size()) {
    if (pi < p.size() && p[pi] == '*') {
      star = pi++;
      mark = ti;
    } else if (pi < p.size() && p[pi] == t[ti]) {
      ++pi;
      ++ti;
    } else if (star != std::string_view::npos) {
      pi = star + 1;
      ti = ++mark;
    } else {
      return false;
    }
  }
  while (pi < p.size() && p[pi] == '*') ++pi;
  return pi == p.size();
}

provider::Provider* PatternRouter::own(std::unique_ptr<provider::Provider> p) {
  providers_.push_back(std::move(p));
  return providers_.back().get();
}

void PatternRouter::add_route(Route route) { routes_.push_back(std::move(route)); }

Result<std::vector<RouteTarget>> PatternRouter::resolve(std::string_view model) const {
  for (const auto& r : routes_)
    if (r.pattern.find('*') == std::string::npos && r.pattern == model) return r.targets;
  for (const auto& r : routes_)
    for (const auto& a : r.aliases)
      if (a == model) return r.targets;
  const Route* best = nullptr;
  for (const auto& r : routes_)
    if (r.pattern.find('*') != std::string::npos && glob_match(r.pattern, model) &&
        (!best || r.pattern.size() > best->pattern.size()))
      best = &r;
  if (best) return best->targets;
  return make_error(ErrorCode::not_found,
                    "model '" + std::string(model) + "' is not served by this gateway", "$.model");
}

std::vector<std::string> PatternRouter::model_names() const {
  std::vector<std::string> out;
  for (const auto& r : routes_) {
    if (r.pattern.find('*') == std::string::npos) out.push_back(r.pattern);
    for (const auto& a : r.aliases) out.push_back(a);
    // A glob route lists the upstream model names it pins, if any.
    if (r.pattern.find('*') != std::string::npos)
      for (const auto& t : r.targets) {
        std::string_view m = t.upstream_model;
        if (m.empty() && t.provider) m = t.provider->default_model();
        if (!m.empty()) out.emplace_back(m);
      }
  }
  return out;
}

}  // namespace toolwire::gateway
