// A model call as the router hands it over: the caller's dialect and what
// its matcher read from the path (dialects/ingress.h).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "toolwire/dialects/dialect.h"

namespace toolwire::gateway::routes {

struct Ingress {
  const dialects::Dialect* dialect = nullptr;
  // The endpoint in logs and metrics, the model left out (a string literal).
  std::string_view route;
  std::string model;           // from the path, decoded; empty: the body's
  std::optional<bool> stream;  // from the path; nullopt: the body's
};

}  // namespace toolwire::gateway::routes
