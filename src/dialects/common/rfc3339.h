// rfc3339.h — RFC 3339 timestamps ("2026-11-27T10:00:00.5Z") ⇄ Unix seconds,
// for the dialects that date an answer in text (Gemini `createTime`) where
// the IR keeps seconds (`created`).
#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

namespace toolwire::dialects {

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
constexpr int64_t days_from_civil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

// Unix seconds of `text` (fractions of a second dropped); nullopt if it is
// not an RFC 3339 date-time.
inline std::optional<int64_t> parse_rfc3339(std::string_view text) {
  auto digits = [&](size_t at, size_t n) -> std::optional<int64_t> {
    if (at + n > text.size()) return std::nullopt;
    int64_t v = 0;
    for (size_t k = at; k < at + n; ++k) {
      if (text[k] < '0' || text[k] > '9') return std::nullopt;
      v = v * 10 + (text[k] - '0');
    }
    return v;
  };
  auto sep = [&](size_t at, std::string_view any) {
    return at < text.size() && any.find(text[at]) != std::string_view::npos;
  };
  const auto y = digits(0, 4), mo = digits(5, 2), d = digits(8, 2), h = digits(11, 2),
             mi = digits(14, 2), s = digits(17, 2);
  if (!y || !mo || !d || !h || !mi || !s || !sep(4, "-") || !sep(7, "-") || !sep(10, "Tt ") ||
      !sep(13, ":") || !sep(16, ":") || *mo < 1 || *mo > 12 || *d < 1 || *d > 31 || *h > 23 ||
      *mi > 59 || *s > 60)
    return std::nullopt;
  size_t at = 19;
  if (sep(at, ".")) {
    ++at;
    const size_t start = at;
    while (at < text.size() && text[at] >= '0' && text[at] <= '9') ++at;
    if (at == start) return std::nullopt;
  }
  int64_t offset = 0;
  if (sep(at, "Zz")) {
    ++at;
  } else if (sep(at, "+-")) {
    const auto oh = digits(at + 1, 2), om = digits(at + 4, 2);
    if (!oh || !om || !sep(at + 3, ":")) return std::nullopt;
    offset = (*oh * 60 + *om) * 60 * (text[at] == '-' ? -1 : 1);
    at += 6;
  } else {
    return std::nullopt;
  }
  if (at != text.size()) return std::nullopt;
  return days_from_civil(*y, static_cast<unsigned>(*mo), static_cast<unsigned>(*d)) * 86400 +
         *h * 3600 + *mi * 60 + *s - offset;
}

// "YYYY-MM-DDTHH:MM:SSZ" of Unix seconds `t`.
inline std::string format_rfc3339(int64_t t) {
  int64_t days = t / 86400, secs = t % 86400;
  if (secs < 0) {
    secs += 86400;
    --days;
  }
  // civil_from_days (H. Hinnant).
  const int64_t z = days + 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const auto doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  const unsigned d = doy - (153 * mp + 2) / 5 + 1;
  const unsigned m = mp < 10 ? mp + 3 : mp - 9;
  const int64_t y = static_cast<int64_t>(yoe) + era * 400 + (m <= 2);
  char buf[80];  // room for any int64 year, as the compiler checks
  std::snprintf(buf, sizeof buf, "%04lld-%02u-%02uT%02lld:%02lld:%02lldZ",
                static_cast<long long>(y), m, d, static_cast<long long>(secs / 3600),
                static_cast<long long>(secs / 60 % 60), static_cast<long long>(secs % 60));
  return buf;
}

}  // namespace toolwire::dialects
