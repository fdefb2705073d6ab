// A Gateway on 127.0.0.1 port 0 in front of a mock HTTP upstream, through the
// real HTTP provider of a profile: one route `*` whose upstream model is
// `up-model`. The fixtures of the upstream tests hold one and start it in
// SetUp with the profile (and path) of the dialect they speak upstream.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "gateway_rig.h"
#include "mock_upstream.h"
#include "toolwire/provider/factory.h"

namespace toolwire::testing {

class UpstreamGateway {
 public:
  ~UpstreamGateway() { stop(); }

  // "" when the gateway is listening, else what went wrong (for ASSERT_EQ).
  std::string start(const std::string& profile, const std::string& base_path,
                    gateway::GatewayOptions opt = small_options(), LossPolicy on_loss = {}) {
    provider::ProviderConfig cfg;
    cfg.profile = profile;
    cfg.base_url = upstream.url(base_path);
    cfg.idle_timeout = Ms(10'000);
    cfg.retry.max_attempts = 1;
    auto resolved = provider::resolve_profile(cfg);
    if (!resolved) return resolved.error().to_string();
    resolved->api_key_required = false;
    auto p = provider::make_http_provider(std::move(*resolved), cfg, client_);
    if (!p) return p.error().to_string();
    auto router = std::make_shared<gateway::PatternRouter>();
    auto* prov = router->own(std::move(*p));
    gateway::RouteTarget target{prov, "up-model", "mock"};
    target.on_loss = std::move(on_loss);
    router->add_route({.pattern = "*", .aliases = {}, .targets = {std::move(target)}});
    opt.log = [this](std::string_view line) {
      std::lock_guard lock(log_mu_);
      log_.emplace_back(line);
    };
    gateway_ = std::make_unique<gateway::Gateway>(std::move(opt), router);
    Status s = gateway_->start();
    return s.ok() ? "" : s.error().to_string();
  }

  // The gateway first (its calls end), then the upstream's held answers.
  void stop() {
    if (gateway_) {
      gateway_->stop();
      gateway_->wait();
      gateway_.reset();
    }
    upstream.release();
    upstream.stop();
  }

  uint16_t port() const { return gateway_->port(); }
  // The gateway's log lines so far.
  std::vector<std::string> log() const {
    std::lock_guard lock(log_mu_);
    return log_;
  }
  gateway::Gateway& gateway() { return *gateway_; }

  MockHttpServer upstream;

 private:
  transport::HttpClient client_;
  mutable std::mutex log_mu_;
  std::vector<std::string> log_;
  std::unique_ptr<gateway::Gateway> gateway_;
};

}  // namespace toolwire::testing
