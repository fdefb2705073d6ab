#include "gateway/config/redis_section.h"

#include "toolwire/redis/url.h"

namespace toolwire::gateway::config_yaml {

Status read_redis(const Reader& r, const YAML::Node& n, SharedStateOptions& o) {
  const std::string p = "redis";
  TW_TRY(r.keys(n, p,
                {"url", "prefix", "timeout_ms", "limits_on_failure", "stream_lease_ms",
                 "conductor_lease_ms", "response_ttl_s", "max_response_kb"}));
  if (!n["url"]) return r.error(n, p, "url is required (redis://HOST:PORT[/DB])");
  TW_TRY(r.str(n, p, "url", o.redis_url));
  if (auto url = redis::parse_url(o.redis_url); !url)
    return r.error(n["url"], p + ".url", url.error().message);
  TW_TRY(r.str(n, p, "prefix", o.prefix));
  TW_TRY(r.millis(n, p, "timeout_ms", 1, 60'000, o.timeout));
  std::string failure = o.limits_fail_open ? "open" : "closed";
  TW_TRY(r.str(n, p, "limits_on_failure", failure));
  if (failure != "open" && failure != "closed")
    return r.error(n["limits_on_failure"], p + ".limits_on_failure",
                   "expected open or closed, got '" + failure + "'");
  o.limits_fail_open = failure == "open";
  TW_TRY(r.millis(n, p, "stream_lease_ms", 100, 3'600'000, o.stream_lease));
  TW_TRY(r.millis(n, p, "conductor_lease_ms", 300, 3'600'000, o.conductor_lease));
  long ttl = o.response_ttl.count();
  TW_TRY(r.integer(n, p, "response_ttl_s", 1, 365L * 86400, ttl));
  o.response_ttl = std::chrono::seconds(ttl);
  size_t kb = o.max_response_bytes >> 10;
  TW_TRY(r.integer_as(n, p, "max_response_kb", 1, 512 * 1024, kb));
  o.max_response_bytes = kb << 10;
  return Status::Ok();
}

}  // namespace toolwire::gateway::config_yaml
