#include "gateway/replay/recording.h"

#include <openssl/evp.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "toolwire/core/json_depth.h"

namespace toolwire::gateway::replay {
namespace {

using nlohmann::ordered_json;

constexpr size_t kMaxFileBytes = 256u << 20;

// Strict UTF-8 (no overlong forms, surrogates or code points past U+10FFFF):
// exactly what a JSON string can carry unchanged.
bool valid_utf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    size_t n = 0;
    unsigned char lo = 0x80, hi = 0xBF;  // the second byte's range
    if (c < 0x80) {
      ++i;
      continue;
    } else if (c >= 0xC2 && c <= 0xDF) {
      n = 1;
    } else if (c >= 0xE0 && c <= 0xEF) {
      n = 2;
      if (c == 0xE0) lo = 0xA0;
      if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      n = 3;
      if (c == 0xF0) lo = 0x90;
      if (c == 0xF4) hi = 0x8F;
    } else {
      return false;
    }
    if (s.size() - i - 1 < n) return false;
    const auto second = static_cast<unsigned char>(s[i + 1]);
    if (second < lo || second > hi) return false;
    for (size_t k = 2; k <= n; ++k)
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    i += n + 1;
  }
  return true;
}

std::string base64(std::string_view in) {
  std::string out(4 * ((in.size() + 2) / 3), '\0');
  int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(in.data()),
                          static_cast<int>(in.size()));
  out.resize(static_cast<size_t>(n));
  return out;
}

std::optional<std::string> unbase64(std::string_view in) {
  if (in.size() % 4 != 0) return std::nullopt;
  std::string out(in.size() / 4 * 3, '\0');
  int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(in.data()),
                          static_cast<int>(in.size()));
  if (n < 0) return std::nullopt;
  size_t pad = 0;
  if (!in.empty() && in.back() == '=') ++pad;
  if (in.size() > 1 && in[in.size() - 2] == '=') ++pad;
  out.resize(static_cast<size_t>(n) - pad);
  return out;
}

Error bad(std::string_view name, std::string_view member, std::string_view why) {
  return make_error(ErrorCode::invalid_argument, "recording " + std::string(name) + ": " +
                                                     std::string(member) + ": " + std::string(why));
}

}  // namespace

bool secret_header(std::string_view name) {
  std::string n(name);
  std::transform(n.begin(), n.end(), n.begin(), [](unsigned char c) { return std::tolower(c); });
  return n == "set-cookie" || n == "cookie" || n == "authorization" || n == "x-api-key" ||
         n == "api-key" || n == "x-goog-api-key" || n.find("token") != std::string::npos ||
         n.find("secret") != std::string::npos;
}

std::string to_file(const Exchange& e) {
  ordered_json req;
  req["method"] = e.method;
  req["target"] = e.target;
  ordered_json body = parse_json_bounded<ordered_json>(e.body);
  // JSON stays JSON (readable, diffable); anything else is kept as text.
  if (body.is_discarded() || !valid_utf8(e.body))
    req["body_text"] = valid_utf8(e.body) ? e.body : std::string();
  else
    req["body"] = std::move(body);
  ordered_json resp;
  resp["status"] = e.status;
  resp["head_ms"] = e.head_ms;
  ordered_json headers = ordered_json::array();
  for (const auto& [k, v] : e.headers) headers.push_back({k, v});
  resp["headers"] = std::move(headers);
  ordered_json chunks = ordered_json::array();
  for (const auto& c : e.chunks) {
    ordered_json j;
    j["at_ms"] = c.at_ms;
    if (valid_utf8(c.bytes))
      j["text"] = c.bytes;
    else
      j["base64"] = base64(c.bytes);
    chunks.push_back(std::move(j));
  }
  resp["chunks"] = std::move(chunks);
  ordered_json root;
  root["toolwire_recording"] = 1;
  root["request"] = std::move(req);
  root["response"] = std::move(resp);
  return root.dump(1, ' ', false, ordered_json::error_handler_t::replace) + "\n";
}

Result<Exchange> parse_exchange(std::string_view text, std::string_view name) {
  if (json_deeper_than(text)) return bad(name, "$", json_too_deep_message());
  ordered_json root = ordered_json::parse(text, nullptr, false);
  if (root.is_discarded()) return bad(name, "$", "not valid JSON");
  if (!root.is_object()) return bad(name, "$", "not an object");
  auto version = root.find("toolwire_recording");
  if (version == root.end() || !version->is_number_integer() || *version != 1)
    return bad(name, "$.toolwire_recording", "expected 1 (a recording of this version)");
  Exchange e;
  auto req = root.find("request");
  if (req == root.end() || !req->is_object()) return bad(name, "$.request", "expected an object");
  auto str = [&](const ordered_json& o, const char* k, std::string& out,
                 const std::string& path) -> Status {
    auto it = o.find(k);
    if (it == o.end() || !it->is_string()) return bad(name, path + "." + k, "expected a string");
    out = it->get<std::string>();
    return Status::Ok();
  };
  TW_TRY(str(*req, "method", e.method, "$.request"));
  TW_TRY(str(*req, "target", e.target, "$.request"));
  if (e.target.empty() || e.target.front() != '/')
    return bad(name, "$.request.target", "expected a path starting with /");
  if (auto b = req->find("body"); b != req->end())
    e.body = b->dump(-1, ' ', false, ordered_json::error_handler_t::replace);
  else if (auto t = req->find("body_text"); t != req->end() && t->is_string())
    e.body = t->get<std::string>();
  else if (t != req->end())
    return bad(name, "$.request.body_text", "expected a string");
  auto resp = root.find("response");
  if (resp == root.end() || !resp->is_object())
    return bad(name, "$.response", "expected an object");
  auto status = resp->find("status");
  if (status == resp->end() || !status->is_number_integer() || *status < 100 || *status > 599)
    return bad(name, "$.response.status", "expected an HTTP status (100 to 599)");
  e.status = status->get<int>();
  auto millis = [&](const ordered_json& o, const char* k, double& out,
                    const std::string& path) -> Status {
    auto it = o.find(k);
    if (it == o.end()) return Status::Ok();
    if (!it->is_number() || it->get<double>() < 0 || it->get<double>() > 86'400'000.0)
      return bad(name, path + "." + k, "expected milliseconds (0 to a day)");
    out = it->get<double>();
    return Status::Ok();
  };
  TW_TRY(millis(*resp, "head_ms", e.head_ms, "$.response"));
  if (auto hs = resp->find("headers"); hs != resp->end()) {
    if (!hs->is_array()) return bad(name, "$.response.headers", "expected a list of [name, value]");
    for (size_t i = 0; i < hs->size(); ++i) {
      const auto& h = (*hs)[i];
      if (!h.is_array() || h.size() != 2 || !h[0].is_string() || !h[1].is_string())
        return bad(name, "$.response.headers[" + std::to_string(i) + "]",
                   "expected [name, value], two strings");
      e.headers.emplace_back(h[0].get<std::string>(), h[1].get<std::string>());
    }
  }
  auto cs = resp->find("chunks");
  if (cs == resp->end() || !cs->is_array())
    return bad(name, "$.response.chunks", "expected a list");
  for (size_t i = 0; i < cs->size(); ++i) {
    const std::string p = "$.response.chunks[" + std::to_string(i) + "]";
    const auto& c = (*cs)[i];
    if (!c.is_object()) return bad(name, p, "expected an object");
    Chunk chunk;
    TW_TRY(millis(c, "at_ms", chunk.at_ms, p));
    if (auto t = c.find("text"); t != c.end() && t->is_string()) {
      chunk.bytes = t->get<std::string>();
    } else if (auto b = c.find("base64"); b != c.end() && b->is_string()) {
      auto bytes = unbase64(b->get<std::string>());
      if (!bytes) return bad(name, p + ".base64", "not valid base64");
      chunk.bytes = std::move(*bytes);
    } else {
      return bad(name, p, "expected \"text\" or \"base64\" (a string)");
    }
    e.chunks.push_back(std::move(chunk));
  }
  e.file = std::string(name);
  return e;
}

Result<std::vector<Exchange>> load_folder(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    return make_error(ErrorCode::not_found, "replay: " + dir + " is not a folder");
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir, ec))
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  if (ec) return make_error(ErrorCode::unavailable, "replay: cannot list " + dir);
  std::sort(files.begin(), files.end());
  std::vector<Exchange> out;
  for (const auto& f : files) {
    const std::string name = f.filename().string();
    if (fs::file_size(f, ec) > kMaxFileBytes || ec)
      return make_error(ErrorCode::resource_exhausted,
                        "recording " + name + ": larger than 256 MiB, or unreadable");
    std::ifstream in(f, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    if (!in) return make_error(ErrorCode::unavailable, "recording " + name + ": cannot read it");
    auto e = parse_exchange(ss.str(), name);
    if (!e) return std::move(e).error();
    out.push_back(std::move(*e));
  }
  return out;
}

}  // namespace toolwire::gateway::replay
