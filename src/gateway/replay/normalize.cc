#include "gateway/replay/normalize.h"

#include <algorithm>
#include <array>
#include <map>

#include "toolwire/core/json_depth.h"

namespace toolwire::gateway::replay {
namespace {

using nlohmann::json;

// Members whose string values are ids a client or a gateway mints per run.
constexpr std::array<std::string_view, 10> kIdKeys = {
    "id",      "tool_call_id", "tool_use_id",          "call_id", "toolUseId",
    "item_id", "response_id",  "previous_response_id", "msg_id",  "request_id"};
constexpr std::array<std::string_view, 4> kTimeKeys = {"created", "created_at", "timestamp",
                                                       "created_time"};

template <size_t N>
bool in(const std::array<std::string_view, N>& set, std::string_view k) {
  for (auto s : set)
    if (s == k) return true;
  return false;
}

struct Masker {
  std::map<std::string, size_t> ids;
  void walk(json& j) {
    if (j.is_array()) {
      for (auto& e : j) walk(e);
      return;
    }
    if (!j.is_object()) return;
    for (auto it = j.begin(); it != j.end(); ++it) {  // sorted: the same order every run
      if (it->is_string() && in(kIdKeys, it.key())) {
        auto [at, fresh] = ids.emplace(it->get<std::string>(), ids.size() + 1);
        *it = "<id:" + std::to_string(at->second) + ">";
      } else if ((it->is_number() || it->is_string()) && in(kTimeKeys, it.key())) {
        *it = "<time>";
      } else {
        walk(*it);
      }
    }
  }
};

std::string shorten(const json& j) {
  std::string s = j.dump(-1, ' ', false, json::error_handler_t::replace);
  if (s.size() > 80) s = s.substr(0, 77) + "...";
  return s;
}

void note(const json* recorded, const json* got, const std::string& where, Difference& d) {
  if (d.count++ > 0) return;
  d.where = where;
  d.recorded = recorded ? shorten(*recorded) : "(nothing)";
  d.got = got ? shorten(*got) : "(nothing)";
}

void compare(const json& a, const json& b, const std::string& path, Difference& d) {
  if (a.is_object() && b.is_object()) {
    for (auto it = a.begin(); it != a.end(); ++it) {
      auto other = b.find(it.key());
      if (other == b.end())
        note(&*it, nullptr, path + "." + it.key(), d);
      else
        compare(*it, *other, path + "." + it.key(), d);
    }
    for (auto it = b.begin(); it != b.end(); ++it)
      if (!a.contains(it.key())) note(nullptr, &*it, path + "." + it.key(), d);
    return;
  }
  if (a.is_array() && b.is_array()) {
    size_t n = std::max(a.size(), b.size());
    for (size_t i = 0; i < n; ++i) {
      std::string p = path + "[" + std::to_string(i) + "]";
      if (i < a.size() && i < b.size())
        compare(a[i], b[i], p, d);
      else
        note(i < a.size() ? &a[i] : nullptr, i < b.size() ? &b[i] : nullptr, p, d);
    }
    return;
  }
  if (a != b) note(&a, &b, path, d);
}

}  // namespace

std::string request_target(std::string_view url) {
  size_t scheme = url.find("://");
  size_t start = url.find('/', scheme == std::string_view::npos ? 0 : scheme + 3);
  if (start == std::string_view::npos) return "/";
  std::string_view rest = url.substr(start);
  if (size_t hash = rest.find('#'); hash != std::string_view::npos) rest = rest.substr(0, hash);
  size_t q = rest.find('?');
  if (q == std::string_view::npos) return std::string(rest);
  std::string out(rest.substr(0, q));
  std::string_view query = rest.substr(q + 1);
  char sep = '?';
  while (!query.empty()) {
    size_t amp = query.find('&');
    std::string_view param = query.substr(0, amp);
    std::string_view name = param.substr(0, param.find('='));
    if (name != "key" && name != "api_key" && name != "api-key" && !name.empty()) {
      out += sep;
      out += param;
      sep = '&';
    }
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
  return out;
}

RequestKey normalize_request(std::string_view method, std::string_view url, std::string_view body) {
  RequestKey k;
  k.method = std::string(method);
  k.target = request_target(url);
  if (!body.empty()) {
    k.body = parse_json_bounded<json>(body);
    if (k.body.is_discarded()) k.body = std::string(body);
    Masker m;
    m.walk(k.body);
  }
  return k;
}

std::string RequestKey::text() const {
  return method + " " + target + "\n" + body.dump(-1, ' ', false, json::error_handler_t::replace);
}

Difference differ(const RequestKey& recorded, const RequestKey& got) {
  Difference d;
  const json method_a(recorded.method), method_b(got.method);
  if (method_a != method_b) note(&method_a, &method_b, "the method", d);
  const json target_a(recorded.target), target_b(got.target);
  if (target_a != target_b) note(&target_a, &target_b, "the path", d);
  compare(recorded.body, got.body, "$", d);
  return d;
}

}  // namespace toolwire::gateway::replay
