// `conductor:` of the gateway YAML (conductor_section.cc).
#pragma once

#include "server/config/reader.h"
#include "toolwire/server/config.h"

namespace toolwire::server::config_yaml {

// Reads the section into c.options.conductor and c.routes[*].device_tools;
// c.routes must be read already.
Status read_conductor(const Reader& r, const YAML::Node& n, GatewayConfig& c);

}  // namespace toolwire::server::config_yaml
