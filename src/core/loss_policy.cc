#include "toolwire/core/loss_policy.h"

#include <algorithm>

namespace toolwire {

bool LossPolicy::refuses(const Warning& w) const {
  return mode == Mode::error && std::find(allow.begin(), allow.end(), w.code) == allow.end();
}

std::optional<Error> LossPolicy::check(const Warnings& ws, std::string_view stage) const {
  if (mode == Mode::warn) return std::nullopt;
  // The paths stay in the message: an encoder's path is in the target's
  // document, not the caller's, so it is no `param` of the caller's request.
  std::string list;
  size_t n = 0;
  for (const auto& w : ws) {
    if (!refuses(w)) continue;
    ++n;
    list += n == 1 ? "" : "; ";
    list += w.code;
    if (!w.path.empty()) list += " at " + w.path;
    if (!w.message.empty()) list += " (" + w.message + ")";
  }
  if (n == 0) return std::nullopt;
  std::string message = "this route refuses lossy translation (on_loss: error), and " +
                        std::string(stage) + " would lose " + std::to_string(n) +
                        (n == 1 ? " thing: " : " things: ") + list +
                        ". Remove what the target cannot express, or list the codes it may "
                        "drop in the route's allow_loss";
  Error e = make_error(ErrorCode::invalid_argument, std::move(message));
  e.http_status = 400;
  return e;
}

std::optional<LossPolicy::Mode> parse_loss_mode(std::string_view text) {
  if (text == "warn") return LossPolicy::Mode::warn;
  if (text == "error") return LossPolicy::Mode::error;
  return std::nullopt;
}

}  // namespace toolwire
