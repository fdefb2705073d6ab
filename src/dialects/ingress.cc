// Lookups over the dialects' ingress entries (toolwire/dialects/ingress.h) and
// the URL helpers their route matchers share.
#include "toolwire/dialects/ingress.h"

#include "toolwire/dialects/dialect.h"

namespace toolwire::dialects {
namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool is_authorization(std::string_view header) { return header == "authorization"; }

}  // namespace

std::string_view bearer_key(std::string_view authorization) {
  if (authorization.size() > 7 &&
      (authorization.substr(0, 7) == "Bearer " || authorization.substr(0, 7) == "bearer "))
    return authorization.substr(7);
  return {};
}

std::optional<ModelCall> match_model_call(std::string_view path, std::string_view query) {
  if (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  for (const Dialect& d : all_dialects()) {
    if (!d.ingress.match_model_call) continue;
    if (auto m = d.ingress.match_model_call(path, query)) return ModelCall{&d, std::move(*m)};
  }
  return std::nullopt;
}

const Dialect& dialect_for_request(std::string_view path, const HeaderLookup& header) {
  auto dialects = all_dialects();
  for (const Dialect& d : dialects)
    if (!d.ingress.marker_header.empty() && !header(d.ingress.marker_header).empty()) return d;
  for (const Dialect& d : dialects)
    if (d.ingress.owns_path && d.ingress.owns_path(path)) return d;
  return dialects.front();
}

std::string_view presented_key(const HeaderLookup& header, const Dialect* dialect,
                               std::string_view query) {
  auto read = [&](const Dialect& d) -> std::string_view {
    std::string_view value = header(d.ingress.key_header);
    if (value.empty()) return {};
    return d.ingress.read_key ? d.ingress.read_key(value) : value;
  };
  // A header that carries only a key first; then the shared Authorization.
  for (bool shared : {false, true})
    for (const Dialect& d : all_dialects())
      if (!d.ingress.key_header.empty() && is_authorization(d.ingress.key_header) == shared)
        if (std::string_view key = read(d); !key.empty()) return key;
  if (dialect && !dialect->ingress.key_query_param.empty() && !query.empty())
    return query_param(query, dialect->ingress.key_query_param).value_or("");
  return {};
}

std::string stream_error_type(const Error& e) {
  if (e.upstream) {
    if (e.http_status == 504) return "timeout_error";
    if (e.http_status == 503) return "overloaded_error";
    if (e.http_status >= 500) return "api_error";
  }
  switch (e.code) {
    case ErrorCode::deadline_exceeded:
      return "timeout_error";
    case ErrorCode::resource_exhausted:
      return "rate_limit_error";
    case ErrorCode::invalid_argument:
      return "invalid_request_error";
    case ErrorCode::unavailable:
      return "overloaded_error";
    default:
      return "api_error";
  }
}

std::string served_routes() {
  std::string out;
  for (const Dialect& d : all_dialects()) {
    if (d.ingress.routes_help.empty()) continue;
    if (!out.empty()) out += ", ";
    out += d.ingress.routes_help;
  }
  return out;
}

Error bad_path(std::string message) {
  Error e = make_error(ErrorCode::invalid_argument, std::move(message));
  e.http_status = 400;
  return e;
}

Result<std::string> path_model(std::string_view raw, std::string_view what) {
  auto model = percent_decode(raw);
  if (!model) return bad_path(std::string(what) + ": " + model.error().message);
  if (model->empty()) return bad_path(std::string(what) + ": the model is missing from the path");
  return model;
}

Result<std::string> percent_decode(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out += s[i];
      continue;
    }
    int hi = i + 2 < s.size() ? hex_value(s[i + 1]) : -1;
    int lo = i + 2 < s.size() ? hex_value(s[i + 2]) : -1;
    if (hi < 0 || lo < 0)
      return make_error(ErrorCode::invalid_argument,
                        "bad percent-encoding at offset " + std::to_string(i));
    char c = static_cast<char>(hi * 16 + lo);
    if (c == '\0')
      return make_error(ErrorCode::invalid_argument, "an encoded NUL is not allowed in a model id");
    out += c;
    i += 2;
  }
  return out;
}

std::optional<std::string_view> query_param(std::string_view query, std::string_view name) {
  while (!query.empty()) {
    auto amp = query.find('&');
    std::string_view item = query.substr(0, amp);
    auto eq = item.find('=');
    if (item.substr(0, eq) == name)
      return eq == std::string_view::npos ? std::string_view() : item.substr(eq + 1);
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
  return std::nullopt;
}

}  // namespace toolwire::dialects
