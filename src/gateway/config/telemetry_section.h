// `telemetry:` of the gateway YAML (telemetry_section.cc): the trace store
// and the OTLP export.
#pragma once

#include "gateway/config/reader.h"
#include "toolwire/gateway/config.h"

namespace toolwire::gateway::config_yaml {

Status read_telemetry(const Reader& r, const YAML::Node& n, TelemetryConfig& t);

}  // namespace toolwire::gateway::config_yaml
