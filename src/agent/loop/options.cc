#include "toolwire/agent/options.h"
#include "toolwire/core/enum_names.h"

namespace toolwire::agent {

namespace {
constexpr EnumName<TurnProtocol> kProtocols[] = {{TurnProtocol::native, "native"},
                                                 {TurnProtocol::envelope, "envelope"}};
}  // namespace

std::string_view to_string(TurnProtocol protocol) {
  return name_of(kProtocols, protocol, "native");
}

Result<TurnProtocol> parse_turn_protocol(std::string_view name) {
  if (auto protocol = value_named(kProtocols, name)) return *protocol;
  return make_error(ErrorCode::invalid_argument,
                    "unknown turn protocol '" + std::string(name) + "' (known: native, envelope)");
}

}  // namespace toolwire::agent
