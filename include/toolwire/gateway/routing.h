// toolwire/gateway/routing.h — a ModelRouter over owned providers.
//
// Routes are tried in precedence order: an exact model name, then an alias,
// then the longest matching glob (`gpt-*`, `claude-*`, `*`). Each route has an
// ordered list of upstream targets (primary first, then fallbacks).
//
//   gateway::PatternRouter r;
//   auto* p = r.own(std::move(provider), "upstream-a");
//   r.add_route({.pattern = "gpt-*", .targets = {{p, "", "upstream-a"}}});
//   r.add_route({.pattern = "fast", .targets = {{p, "gpt-4o-mini", "upstream-a"}}});
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "toolwire/gateway/gateway.h"

namespace toolwire::gateway {

struct Route {
  std::string pattern;               // exact name or glob with '*'
  std::vector<std::string> aliases;  // more exact names for this route
  std::vector<RouteTarget> targets;
};

class PatternRouter final : public ModelRouter {
 public:
  // Keeps `p` alive as long as the router; returns it for RouteTargets.
  provider::Provider* own(std::unique_ptr<provider::Provider> p);
  void add_route(Route route);

  Result<std::vector<RouteTarget>> resolve(std::string_view model) const override;
  std::vector<std::string> model_names() const override;

 private:
  std::vector<std::unique_ptr<provider::Provider>> providers_;
  std::vector<Route> routes_;
};

// '*' matches any run of characters; everything else literally.
bool glob_match(std::string_view pattern, std::string_view text);

}  // namespace toolwire::gateway
