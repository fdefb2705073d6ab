-- wrk script for the gateway benchmark (run.sh): POST the body in $BODY with
-- the headers in $HEADERS ("name: value" pairs separated by "|"), and print one
-- machine-readable line at the end (requests, errors, latency percentiles in µs).
local f = assert(io.open(os.getenv("BODY"), "rb"))
wrk.method = "POST"
wrk.body = f:read("*a")
f:close()
wrk.headers["Content-Type"] = "application/json"
for pair in string.gmatch(os.getenv("HEADERS") or "", "[^|]+") do
  local name, value = string.match(pair, "^%s*([^:]+):%s*(.*)$")
  if name then wrk.headers[name] = value end
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    "WRK requests=%d duration_us=%d bytes=%d connect_err=%d read_err=%d write_err=%d " ..
    "status_err=%d timeout=%d p50_us=%.1f p90_us=%.1f p99_us=%.1f mean_us=%.1f\n",
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write,
    e.status, e.timeout, latency:percentile(50), latency:percentile(90),
    latency:percentile(99), latency.mean))
end
