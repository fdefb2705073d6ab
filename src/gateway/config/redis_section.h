// The YAML's `redis:` section: shared state across replicas (docs/deploy.md).
#pragma once

#include <yaml-cpp/yaml.h>

#include "gateway/config/reader.h"
#include "toolwire/gateway/gateway.h"

namespace toolwire::gateway::config_yaml {

Status read_redis(const Reader& r, const YAML::Node& n, SharedStateOptions& o);

}  // namespace toolwire::gateway::config_yaml
