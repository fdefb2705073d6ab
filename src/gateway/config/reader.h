// The YAML reader's helpers: typed getters that turn a bad value into an
// Error naming file:line:column and the key path (used by load.cc and the
// sections read in files of their own).
#pragma once

#include <yaml-cpp/yaml.h>

#include <chrono>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "toolwire/core/result.h"

namespace toolwire::gateway::config_yaml {

struct Reader {
  std::string file;

  Error error(const YAML::Node& n, const std::string& path, const std::string& msg) const {
    YAML::Mark m = n.Mark();
    std::string where = file;
    if (m.line >= 0) where += ":" + std::to_string(m.line + 1) + ":" + std::to_string(m.column + 1);
    return make_error(ErrorCode::invalid_argument, where + ": " + path + ": " + msg);
  }

  Status keys(const YAML::Node& n, const std::string& path,
              std::initializer_list<const char*> allowed) const {
    if (!n.IsMap()) return error(n, path, "expected a mapping");
    std::set<std::string> ok(allowed.begin(), allowed.end());
    for (const auto& kv : n) {
      std::string k = kv.first.as<std::string>();
      if (!ok.count(k)) {
        std::string list;
        for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
        return error(kv.first, path.empty() ? k : path + "." + k,
                     "unknown key (expected one of: " + list + ")");
      }
    }
    return Status::Ok();
  }

  static std::string join(const std::string& path, const std::string& k) {
    return path.empty() ? k : path + "." + k;
  }

  Status str(const YAML::Node& parent, const std::string& path, const char* key,
             std::string& out) const {
    YAML::Node n = parent[key];
    if (!n) return Status::Ok();
    if (!n.IsScalar()) return error(n, join(path, key), "expected a string");
    out = n.Scalar();
    return Status::Ok();
  }

  Status integer(const YAML::Node& parent, const std::string& path, const char* key, long lo,
                 long hi, long& out) const {
    YAML::Node n = parent[key];
    if (!n) return Status::Ok();
    if (!n.IsScalar()) return error(n, join(path, key), "expected an integer");
    const std::string& s = n.Scalar();
    char* end = nullptr;
    long v = std::strtol(s.c_str(), &end, 10);
    if (s.empty() || *end != '\0')
      return error(n, join(path, key), "expected an integer, got '" + s + "'");
    if (v < lo || v > hi)
      return error(n, join(path, key),
                   "must be between " + std::to_string(lo) + " and " + std::to_string(hi));
    out = v;
    return Status::Ok();
  }

  template <class Int>
  Status integer_as(const YAML::Node& parent, const std::string& path, const char* key, long lo,
                    long hi, Int& out) const {
    long v = static_cast<long>(out);
    TW_TRY(integer(parent, path, key, lo, hi, v));
    out = static_cast<Int>(v);
    return Status::Ok();
  }

  Status millis(const YAML::Node& parent, const std::string& path, const char* key, long lo,
                long hi, std::chrono::milliseconds& out) const {
    long v = static_cast<long>(out.count());
    TW_TRY(integer(parent, path, key, lo, hi, v));
    out = std::chrono::milliseconds(v);
    return Status::Ok();
  }

  Status boolean(const YAML::Node& parent, const std::string& path, const char* key,
                 bool& out) const {
    YAML::Node n = parent[key];
    if (!n) return Status::Ok();
    if (!n.IsScalar() || (n.Scalar() != "true" && n.Scalar() != "false"))
      return error(n, join(path, key), "expected true or false");
    out = n.Scalar() == "true";
    return Status::Ok();
  }

  Status strings(const YAML::Node& parent, const std::string& path, const char* key,
                 std::vector<std::string>& out) const {
    YAML::Node n = parent[key];
    if (!n) return Status::Ok();
    if (!n.IsSequence()) return error(n, join(path, key), "expected a list of strings");
    out.clear();
    for (size_t i = 0; i < n.size(); ++i) {
      if (!n[i].IsScalar())
        return error(n[i], join(path, key) + "[" + std::to_string(i) + "]", "expected a string");
      out.push_back(n[i].Scalar());
    }
    return Status::Ok();
  }

  Status number(const YAML::Node& parent, const std::string& path, const char* key, double lo,
                double hi, double& out) const {
    YAML::Node n = parent[key];
    if (!n) return Status::Ok();
    if (!n.IsScalar()) return error(n, join(path, key), "expected a number");
    const std::string& s = n.Scalar();
    char* end = nullptr;
    double v = std::strtod(s.c_str(), &end);
    if (s.empty() || *end != '\0' || v != v)
      return error(n, join(path, key), "expected a number, got '" + s + "'");
    if (v < lo || v > hi)
      return error(n, join(path, key),
                   "must be between " + std::to_string(lo) + " and " + std::to_string(hi));
    out = v;
    return Status::Ok();
  }
};

}  // namespace toolwire::gateway::config_yaml
