// A Gateway on 127.0.0.1 port 0 in front of a TestProvider, with small
// limits so slow-client cases end fast, and helpers for the two dialects.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "raw_client.h"
#include "test_provider.h"
#include "toolwire/gateway/gateway.h"
#include "toolwire/gateway/routing.h"

namespace toolwire::testing {

inline gateway::GatewayOptions small_options() {
  gateway::GatewayOptions o;
  o.host = "127.0.0.1";
  o.port = 0;
  o.threads = 2;
  o.limits.max_header_bytes = 4 * 1024;
  o.limits.max_body_bytes = 64 * 1024;
  o.limits.header_timeout = Ms(300);
  o.limits.body_timeout = Ms(300);
  o.limits.keepalive_idle = Ms(10'000);
  o.drain_deadline = Ms(2000);
  return o;
}

class GatewayRig {
 public:
  explicit GatewayRig(gateway::GatewayOptions opt = small_options()) {
    auto router = std::make_shared<gateway::PatternRouter>();
    auto p = std::make_unique<TestProvider>();
    provider = p.get();
    auto* owned = router->own(std::move(p));
    router->add_route({.pattern = "gpt-*", .aliases = {}, .targets = {{owned, "", "test"}}});
    router->add_route({.pattern = "claude-*", .aliases = {}, .targets = {{owned, "", "test"}}});
    router->add_route({.pattern = "hold*", .aliases = {}, .targets = {{owned, "", "test"}}});
    opt.log = [this](std::string_view line) {
      std::lock_guard lock(log_mu_);
      log_.emplace_back(line);
    };
    gateway = std::make_unique<gateway::Gateway>(std::move(opt), router);
    Status s = gateway->start();
    EXPECT_TRUE(s.ok()) << s.error().to_string();
    port = gateway->port();
  }
  ~GatewayRig() {
    gateway->stop();
    gateway->wait();
    // Every held call ended (answered, or cancelled when its client went).
    EXPECT_EQ(provider->open_calls(), 0u);
    gateway.reset();
  }

  // The value of an unlabelled metric line `name value`, or of the sum of
  // every series of `name` whose labels contain `label_part`.
  double metric(std::string_view name, std::string_view label_part = "") const {
    std::string text = gateway->metrics_text();
    double sum = 0;
    size_t pos = 0;
    while (pos < text.size()) {
      size_t e = text.find('\n', pos);
      if (e == std::string::npos) e = text.size();
      std::string_view line(text.data() + pos, e - pos);
      pos = e + 1;
      if (!line.starts_with(name)) continue;
      std::string_view rest = line.substr(name.size());
      if (!rest.starts_with(" ") && !rest.starts_with("{")) continue;
      if (!label_part.empty() && rest.find(label_part) == std::string_view::npos) continue;
      sum += std::stod(std::string(rest.substr(rest.rfind(' ') + 1)));
    }
    return sum;
  }

  // Polls `cond` until it holds or `limit` passes (for state the gateway
  // updates on its own threads after the event a test can wait on).
  static bool eventually(const std::function<bool()>& cond, Ms limit = Ms(3000)) {
    auto deadline = SteadyClock::now() + limit;
    while (!cond()) {
      if (SteadyClock::now() > deadline) return false;
      std::this_thread::yield();
    }
    return true;
  }

  std::vector<std::string> log() const {
    std::lock_guard lock(log_mu_);
    return log_;
  }

  std::unique_ptr<gateway::Gateway> gateway;
  TestProvider* provider = nullptr;  // owned by the router
  uint16_t port = 0;

 private:
  mutable std::mutex log_mu_;
  std::vector<std::string> log_;
};

// What differs between the two client dialects.
struct DialectCase {
  std::string name;  // "openai" | "anthropic"
  std::string path;  // POST endpoint
  bool anthropic;

  // A valid request body for `model`, with `user` as the last user text and
  // `extra` (`,"key":value...`) spliced into the top-level object.
  std::string body(std::string_view model, std::string_view user = "hi", bool stream = false,
                   std::string_view extra = "") const {
    std::string b = R"({"model":")" + std::string(model) + R"(",)";
    if (anthropic) b += R"("max_tokens":64,)";
    b += R"("messages":[{"role":"user","content":")" + std::string(user) + R"("}])";
    if (stream) b += R"(,"stream":true)";
    b += extra;
    b += "}";
    return b;
  }
  std::string model() const { return anthropic ? "claude-test" : "gpt-test"; }
  std::string request(std::string_view body, std::string_view extra_headers = "") const {
    std::string h(extra_headers);
    if (anthropic) h += "anthropic-version: 2023-06-01\r\n";
    return http_post(path, body, h);
  }
};

inline void PrintTo(const DialectCase& d, std::ostream* os) { *os << d.name; }

inline std::vector<DialectCase> dialects() {
  return {{"openai", "/v1/chat/completions", false}, {"anthropic", "/v1/messages", true}};
}

// The error type each dialect documents for a status.
inline std::string expected_error_type(bool anthropic, int status) {
  if (anthropic) {
    switch (status) {
      case 404:
        return "not_found_error";
      case 413:
        return "request_too_large";
      case 504:
        return "timeout_error";
      default:
        return status >= 500 ? "api_error" : "invalid_request_error";
    }
  }
  switch (status) {
    case 404:
      return "not_found_error";
    default:
      return status >= 500 ? "server_error" : "invalid_request_error";
  }
}

// Checks `r` is exactly the dialect's error: status, JSON content type, and
// the body's keys — OpenAI {"error":{"message","type","param","code"}},
// Anthropic {"type":"error","error":{"type","message"}} — nothing more.
inline void expect_error_shape(const std::optional<HttpResponse>& r, bool anthropic, int status,
                               std::string_view message_part = "") {
  ASSERT_TRUE(r.has_value()) << "no response";
  EXPECT_EQ(r->status, status) << r->body;
  EXPECT_EQ(r->header("content-type"), "application/json");
  auto j = nlohmann::json::parse(r->body, nullptr, false);
  ASSERT_TRUE(j.is_object()) << r->body;
  std::string type = expected_error_type(anthropic, status);
  if (anthropic) {
    ASSERT_EQ(j.size(), 2u) << r->body;
    EXPECT_EQ(j["type"], "error") << r->body;
    ASSERT_TRUE(j["error"].is_object()) << r->body;
    const auto& e = j["error"];
    EXPECT_EQ(e.size(), 2u) << r->body;
    EXPECT_EQ(e["type"], type) << r->body;
    ASSERT_TRUE(e["message"].is_string()) << r->body;
    EXPECT_NE(e["message"].get<std::string>().find(message_part), std::string::npos) << r->body;
  } else {
    ASSERT_EQ(j.size(), 1u) << r->body;
    ASSERT_TRUE(j["error"].is_object()) << r->body;
    const auto& e = j["error"];
    EXPECT_EQ(e.size(), 4u) << r->body;
    ASSERT_TRUE(e["message"].is_string()) << r->body;
    EXPECT_NE(e["message"].get<std::string>().find(message_part), std::string::npos) << r->body;
    EXPECT_EQ(e["type"], type) << r->body;
    EXPECT_TRUE(e.contains("param") && (e["param"].is_null() || e["param"].is_string())) << r->body;
    EXPECT_TRUE(e.contains("code") && (e["code"].is_null() || e["code"].is_string())) << r->body;
  }
}

}  // namespace toolwire::testing
