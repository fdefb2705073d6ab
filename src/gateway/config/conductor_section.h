// `conductor:` of the gateway YAML (conductor_section.cc).
#pragma once

#include "gateway/config/reader.h"
#include "toolwire/gateway/config.h"

namespace toolwire::gateway::config_yaml {

// Reads the section into c.options.conductor and c.routes[*].device_tools;
// c.routes must be read already.
Status read_conductor(const Reader& r, const YAML::Node& n, GatewayConfig& c);

}  // namespace toolwire::gateway::config_yaml
