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

// Conductor sessions (docs/deploy.md#conductor-sessions): one hash per
// session, owned by one replica through a lease (`owner`, `until`, Redis's
// clock). `want` is another replica asking for the session.

// Writes a session's state. KEYS[1]: the session's hash; ARGV: replica,
// lease ms, ttl ms, then field/value pairs. 1: written; 0: another replica
// holds the session (this one lost it).
inline constexpr std::string_view kSaveSession = R"lua(
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local owner = redis.call('HGET', KEYS[1], 'owner')
if owner and owner ~= '' and owner ~= ARGV[1] then
  local expiry = tonumber(redis.call('HGET', KEYS[1], 'until') or '0')
  if expiry >= now then return 0 end
end
local kv = {'owner', ARGV[1], 'until', tostring(now + tonumber(ARGV[2]))}
for i = 4, #ARGV do kv[#kv + 1] = ARGV[i] end
redis.call('HSET', KEYS[1], unpack(kv))
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]))
return 1
)lua";

// The owner's lease renewal. KEYS[1]; ARGV: replica, lease ms, ttl ms.
// 1: renewed; 2: renewed, and another replica wants the session; 0: another
// replica holds it; -1: no such session (Redis lost it: write it again).
inline constexpr std::string_view kRenewSession = R"lua(
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
local owner = redis.call('HGET', KEYS[1], 'owner')
if owner ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'until', tostring(now + tonumber(ARGV[2])))
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]))
if redis.call('HEXISTS', KEYS[1], 'want') == 1 then return 2 end
return 1
)lua";

// A replica that got a resume for the session. KEYS[1]; ARGV: replica,
// lease ms, token hash, key name. {-1}: unknown (or another key's);
// {-2}: wrong token; {0}: its owner is alive (asked to hand it over);
// {1, fields...}: now this replica's, with every stored field.
inline constexpr std::string_view kClaimSession = R"lua(
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
if redis.call('EXISTS', KEYS[1]) == 0 then return {-1} end
if redis.call('HGET', KEYS[1], 'key') ~= ARGV[4] then return {-1} end
if redis.call('HGET', KEYS[1], 'token') ~= ARGV[3] then return {-2} end
local owner = redis.call('HGET', KEYS[1], 'owner') or ''
local expiry = tonumber(redis.call('HGET', KEYS[1], 'until') or '0')
if owner ~= '' and owner ~= ARGV[1] and expiry >= now then
  redis.call('HSET', KEYS[1], 'want', ARGV[1])
  return {0}
end
redis.call('HSET', KEYS[1], 'owner', ARGV[1], 'until', tostring(now + tonumber(ARGV[2])))
redis.call('HDEL', KEYS[1], 'want')
local out = {1}
for _, v in ipairs(redis.call('HGETALL', KEYS[1])) do out[#out + 1] = v end
return out
)lua";

// The owner lets the session go. KEYS[1]; ARGV: replica, 'drop' or
// 'release'. drop: the session ended (deleted); release: another replica
// may take it at once.
inline constexpr std::string_view kReleaseSession = R"lua(
if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then return 0 end
if ARGV[2] == 'drop' then
  redis.call('DEL', KEYS[1])
else
  redis.call('HSET', KEYS[1], 'owner', '', 'until', '0')
end
return 1
)lua";

}  // namespace toolwire::gateway::shared_state::scripts
