#include "toolwire/agent/options.h"

namespace toolwire::agent {

std::string_view to_string(TurnProtocol protocol) {
  switch (protocol) {
    case TurnProtocol::native:
      return "native";
    case TurnProtocol::envelope:
      return "envelope";
  }
  return "native";
}

Result<TurnProtocol> parse_turn_protocol(std::string_view name) {
  if (name == "native") return TurnProtocol::native;
  if (name == "envelope") return TurnProtocol::envelope;
  return make_error(ErrorCode::invalid_argument,
                    "unknown turn protocol '" + std::string(name) + "' (known: native, envelope)");
}

}  // namespace toolwire::agent
