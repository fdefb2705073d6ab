// The Lua scripts the shared limits run in Redis: each check is one
// EVALSHA, atomic there, so replicas never race on a key's counters. Time
// is Redis's own (TIME), so the replicas' clocks need not agree.
#pragma once

#include <string_view>

namespace toolwire::gateway::shared_state::scripts {

// requests_per_minute as GCRA, which is the in-process token bucket (a
// burst of `rpm`, refilled continuously) kept in one number: the time at
// which the bucket is full again. KEYS[1]: the key's; ARGV[1]: rpm.
// Returns 0 (taken) or the seconds until a request is back.
inline constexpr std::string_view kTakeRequest = R"lua(
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local rpm = tonumber(ARGV[1])
local interval = 60000 / rpm
local v = redis.call('GET', KEYS[1])
local tat = v and tonumber(v) or now
if tat < now then tat = now end
local new_tat = tat + interval
if new_tat - 60000 > now then
  return math.max(1, math.ceil((new_tat - 60000 - now) / 1000))
end
redis.call('SET', KEYS[1], tostring(new_tat), 'PX', math.ceil(new_tat - now) + 1000)
return 0
)lua";

// max_concurrent_streams as leases: a sorted set of lease ids scored by
// their expiry. Expired ones (a replica that died holding them) are dropped
// first. KEYS[1]: the key's set; ARGV: max, lease id, lease ms. 1: taken.
inline constexpr std::string_view kOpenStream = R"lua(
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[2])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]) * 2)
return 1
)lua";

// Renews this replica's open leases of one key. KEYS[1]: the set; ARGV[1]:
// lease ms, then the lease ids. Only leases still there are renewed (XX).
inline constexpr std::string_view kRenewStreams = R"lua(
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
for i = 2, #ARGV do
  redis.call('ZADD', KEYS[1], 'XX', now + tonumber(ARGV[1]), ARGV[i])
end
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[1]) * 2)
return 0
)lua";

}  // namespace toolwire::gateway::shared_state::scripts
