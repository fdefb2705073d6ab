// GET /v1/traces's query string → TraceQuery, GET /v1/traces/stats's →
// StatsQuery. Untrusted: every parameter is known, given once, bounded and
// checked.
#include <charconv>

#include "toolwire/telemetry/trace_store.h"

namespace toolwire::telemetry {
namespace {

constexpr size_t kMaxValue = 256;

Error bad(std::string_view param, std::string why) {
  return make_error(ErrorCode::invalid_argument,
                    "traces query: " + std::string(param) + ": " + std::move(why));
}

int hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

Result<std::string> decode(std::string_view name, std::string_view v) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) {
    if (v[i] == '+') {
      out += ' ';
    } else if (v[i] == '%') {
      if (i + 2 >= v.size()) return bad(name, "a % not followed by two hex digits");
      int hi = hex(v[i + 1]), lo = hex(v[i + 2]);
      if (hi < 0 || lo < 0) return bad(name, "a % not followed by two hex digits");
      out += static_cast<char>(hi * 16 + lo);
      i += 2;
    } else {
      out += v[i];
    }
  }
  if (out.size() > kMaxValue) return bad(name, "longer than 256 bytes");
  for (unsigned char c : out)
    if (c < 0x20 || c == 0x7f) return bad(name, "a control character");
  return out;
}

Result<long> integer(std::string_view name, const std::string& v, long lo, long hi) {
  long n = 0;
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (ec != std::errc() || end != v.data() + v.size() || n < lo || n > hi)
    return bad(name, "expected an integer from " + std::to_string(lo) + " to " +
                         std::to_string(hi) + ", got '" + v + "'");
  return n;
}

// Calls `take(index, decoded value)` for each `name=value` of `query`, whose
// names must be among `names` and given once.
template <size_t N, typename Take>
Status each_param(std::string_view query, const std::string_view (&names)[N],
                  std::string_view expected, Take take) {
  bool seen[N] = {};
  while (!query.empty()) {
    size_t amp = query.find('&');
    std::string_view param = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (param.empty()) continue;
    size_t eq = param.find('=');
    std::string_view name = param.substr(0, eq);
    std::string_view raw = eq == std::string_view::npos ? std::string_view() : param.substr(eq + 1);
    size_t which = 0;
    while (which < N && names[which] != name) ++which;
    if (which == N)
      return bad(name.size() > 64 ? name.substr(0, 64) : name,
                 "unknown parameter (expected " + std::string(expected) + ")");
    if (seen[which]) return bad(name, "given twice");
    seen[which] = true;
    auto value = decode(name, raw);
    if (!value) return std::move(value).error();
    TW_TRY(take(which, name, std::move(*value)));
  }
  return Status::Ok();
}

}  // namespace

Result<StatsQuery> parse_stats_query(std::string_view query) {
  StatsQuery q;
  static constexpr std::string_view kNames[3] = {"key", "window", "bucket"};
  TW_TRY(each_param(query, kNames, "key, window, bucket",
                    [&](size_t which, std::string_view name, std::string value) -> Status {
                      if (which == 0) {
                        q.key = std::move(value);
                        return Status::Ok();
                      }
                      auto n = which == 1 ? integer(name, value, 60, 7 * 86400)
                                          : integer(name, value, 1, 7 * 86400);
                      if (!n) return std::move(n).error();
                      (which == 1 ? q.window_s : q.bucket_s) = *n;
                      return Status::Ok();
                    }));
  if (q.bucket_s > q.window_s)
    return bad("bucket", "longer than the window (" + std::to_string(q.window_s) + " s)");
  if (q.window_s / q.bucket_s > 1000)
    return bad("bucket", "more than 1000 buckets in the window; make it longer");
  return q;
}

Result<TraceQuery> parse_trace_query(std::string_view query) {
  TraceQuery q;
  static constexpr std::string_view kNames[5] = {"key", "model", "status", "errors", "limit"};
  TW_TRY(each_param(query, kNames, "key, model, status, errors, limit",
                    [&](size_t which, std::string_view name, std::string value) -> Status {
                      switch (which) {
                        case 0:
                          q.key = std::move(value);
                          break;
                        case 1:
                          q.model = std::move(value);
                          break;
                        case 2: {
                          auto n = integer(name, value, 100, 599);
                          if (!n) return std::move(n).error();
                          q.status = static_cast<int>(*n);
                          break;
                        }
                        case 3:
                          if (value == "true" || value == "1")
                            q.errors_only = true;
                          else if (value == "false" || value == "0")
                            q.errors_only = false;
                          else
                            return bad(name, "expected true or false, got '" + value + "'");
                          break;
                        case 4: {
                          auto n = integer(name, value, 1, 1000);
                          if (!n) return std::move(n).error();
                          q.limit = static_cast<size_t>(*n);
                          break;
                        }
                      }
                      return Status::Ok();
                    }));
  return q;
}

}  // namespace toolwire::telemetry
