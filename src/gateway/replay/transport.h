// The transport a configuration's `record:` / `replay:` asks for: a Recorder
// around `real`, a Player instead of it, or none (null: use `real`).
#pragma once

#include <memory>

#include "gateway/replay/player.h"
#include "gateway/replay/recorder.h"
#include "toolwire/gateway/config.h"

namespace toolwire::gateway {

inline Result<std::shared_ptr<transport::HttpTransport>> recording_transport(
    const RecordingConfig& c, transport::HttpTransport& real) {
  switch (c.mode) {
    case RecordingConfig::Mode::record: {
      auto r = replay::Recorder::open(real, c.dir);
      if (!r) return std::move(r).error();
      return std::shared_ptr<transport::HttpTransport>(std::move(*r));
    }
    case RecordingConfig::Mode::replay: {
      auto p = replay::Player::open(c.dir, c.pacing);
      if (!p) return std::move(p).error();
      return std::shared_ptr<transport::HttpTransport>(std::move(*p));
    }
    case RecordingConfig::Mode::off:
      break;
  }
  return std::shared_ptr<transport::HttpTransport>();
}

}  // namespace toolwire::gateway
