// toolwire/tools/typed_args.h — describe an argument struct once, get its
// JSON Schema and a decoder (the C++ counterpart of zod / @Generable).
//
//   struct Location {
//     std::string city;
//     std::optional<std::string> country;
//     static auto tw_fields() {
//       using toolwire::tools::field;
//       return toolwire::tools::fields(
//           field("city", &Location::city, "City name"),
//           field("country", &Location::country, "ISO 3166 code").pattern("^[A-Z]{2}$"));
//     }
//   };
//   struct WeatherArgs {
//     Location where;
//     std::string unit = "c";
//     std::vector<int> days;
//     static auto tw_fields() {
//       using toolwire::tools::field;
//       return toolwire::tools::fields(
//           field("where", &WeatherArgs::where, "Where"),
//           field("unit", &WeatherArgs::unit, "Unit").one_of({"c", "f"}).optional(),
//           field("days", &WeatherArgs::days, "Day offsets").minimum(0).maximum(6));
//     }
//   };
//   nlohmann::json schema = tools::schema_of<WeatherArgs>();
//   Result<WeatherArgs> a = tools::decode_args<WeatherArgs>(json);   // errors name "$.where.city"
//   ToolSpec spec = tools::typed_tool<WeatherArgs>("get_weather", "Weather",
//       [](const WeatherArgs& a, ToolContext& ctx) { return ToolOutput::text(a.where.city); });
//
// Supported member types: std::string, bool, integers, floating point,
// std::optional<T> (optional field), std::vector<T>, std::map<std::string, T>,
// nlohmann::json (any value) and structs with a static tw_fields(). Fields are
// required unless std::optional or marked .optional() (absent keeps the
// member's default). Objects get additionalProperties:false. Constraints on
// a vector field (minimum, one_of, ...) apply to its items.
#pragma once

#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "toolwire/core/result.h"
#include "toolwire/tools/tool.h"

namespace toolwire::tools {

template <class S, class M>
struct Field {
  const char* name;
  M S::*member;
  std::string description;
  bool optional_ = false;
  nlohmann::json constraints = nlohmann::json::object();  // merged into the value schema

  Field&& optional() && {
    optional_ = true;
    return std::move(*this);
  }
  Field&& one_of(std::vector<nlohmann::json> values) && {
    constraints["enum"] = std::move(values);
    return std::move(*this);
  }
  Field&& minimum(double v) && {
    constraints["minimum"] = number(v);
    return std::move(*this);
  }
  Field&& maximum(double v) && {
    constraints["maximum"] = number(v);
    return std::move(*this);
  }
  Field&& min_length(size_t n) && {
    constraints["minLength"] = n;
    return std::move(*this);
  }
  Field&& max_length(size_t n) && {
    constraints["maxLength"] = n;
    return std::move(*this);
  }
  Field&& pattern(std::string re) && {
    constraints["pattern"] = std::move(re);
    return std::move(*this);
  }
  Field&& min_items(size_t n) && {
    array_constraints["minItems"] = n;
    return std::move(*this);
  }
  Field&& max_items(size_t n) && {
    array_constraints["maxItems"] = n;
    return std::move(*this);
  }

  nlohmann::json array_constraints = nlohmann::json::object();  // on the array itself

 private:
  static nlohmann::json number(double v) {
    if (std::floor(v) == v && std::abs(v) < 9e15) return static_cast<int64_t>(v);
    return v;
  }
};

template <class S, class M>
Field<S, M> field(const char* name, M S::*member, std::string description = {}) {
  return Field<S, M>{name, member, std::move(description)};
}

template <class... F>
std::tuple<F...> fields(F&&... f) {
  return std::tuple<F...>(std::forward<F>(f)...);
}

namespace typed_detail {

template <class T, class = void>
struct has_fields : std::false_type {};
template <class T>
struct has_fields<T, std::void_t<decltype(T::tw_fields())>> : std::true_type {};

template <class T>
struct is_optional : std::false_type {};
template <class T>
struct is_optional<std::optional<T>> : std::true_type {};
template <class T>
struct is_vector : std::false_type {};
template <class T, class A>
struct is_vector<std::vector<T, A>> : std::true_type {};
template <class T>
struct is_map : std::false_type {};
template <class T, class C, class A>
struct is_map<std::map<std::string, T, C, A>> : std::true_type {};

template <class T>
nlohmann::json schema(const nlohmann::json& constraints);
template <class T>
Status decode(const nlohmann::json& j, T& out, const std::string& path);

inline void merge(nlohmann::json& into, const nlohmann::json& extra) {
  for (auto it = extra.begin(); it != extra.end(); ++it) into[it.key()] = it.value();
}

template <class S>
nlohmann::json object_schema() {
  nlohmann::json props = nlohmann::json::object();
  nlohmann::json required = nlohmann::json::array();
  std::apply(
      [&](const auto&... f) {
        (
            [&] {
              using M = std::remove_cvref_t<decltype(std::declval<S&>().*(f.member))>;
              nlohmann::json s = schema<M>(f.constraints);
              if constexpr (is_vector<M>::value) merge(s, f.array_constraints);
              if (!f.description.empty()) s["description"] = f.description;
              props[f.name] = std::move(s);
              if (!is_optional<M>::value && !f.optional_) required.push_back(f.name);
            }(),
            ...);
      },
      S::tw_fields());
  nlohmann::json out = {{"type", "object"}, {"properties", std::move(props)}};
  if (!required.empty()) out["required"] = std::move(required);
  out["additionalProperties"] = false;
  return out;
}

template <class T>
nlohmann::json schema(const nlohmann::json& constraints) {
  nlohmann::json s;
  if constexpr (is_optional<T>::value) {
    return schema<typename T::value_type>(constraints);
  } else if constexpr (is_vector<T>::value) {
    return {{"type", "array"}, {"items", schema<typename T::value_type>(constraints)}};
  } else if constexpr (is_map<T>::value) {
    return {{"type", "object"},
            {"additionalProperties", schema<typename T::mapped_type>(constraints)}};
  } else if constexpr (has_fields<T>::value) {
    s = object_schema<T>();
  } else if constexpr (std::is_same_v<T, std::string>) {
    s = {{"type", "string"}};
  } else if constexpr (std::is_same_v<T, bool>) {
    s = {{"type", "boolean"}};
  } else if constexpr (std::is_integral_v<T>) {
    s = {{"type", "integer"}};
  } else if constexpr (std::is_floating_point_v<T>) {
    s = {{"type", "number"}};
  } else if constexpr (std::is_same_v<T, nlohmann::json>) {
    s = nlohmann::json::object();
  } else {
    static_assert(sizeof(T) == 0, "typed_args: unsupported member type (add tw_fields())");
  }
  merge(s, constraints);
  return s;
}

inline Status type_error(const std::string& path, const char* want) {
  return make_error(ErrorCode::invalid_argument, std::string("expected ") + want, path);
}

template <class S>
Status decode_object(const nlohmann::json& j, S& out, const std::string& path) {
  if (!j.is_object()) return type_error(path, "object");
  Status st;
  std::apply(
      [&](const auto&... f) {
        (
            [&] {
              if (!st) return;
              using M = std::remove_cvref_t<decltype(out.*(f.member))>;
              std::string sub = path + "." + f.name;
              auto it = j.find(f.name);
              if (it == j.end() || (it->is_null() && (is_optional<M>::value || f.optional_))) {
                if (!is_optional<M>::value && !f.optional_)
                  st = make_error(ErrorCode::invalid_argument, "required property missing", sub);
                return;
              }
              st = decode<M>(*it, out.*(f.member), sub);
            }(),
            ...);
      },
      S::tw_fields());
  return st;
}

template <class T>
Status decode(const nlohmann::json& j, T& out, const std::string& path) {
  if constexpr (is_optional<T>::value) {
    if (j.is_null()) {
      out.reset();
      return {};
    }
    typename T::value_type v{};
    TW_TRY(decode(j, v, path));
    out = std::move(v);
    return {};
  } else if constexpr (is_vector<T>::value) {
    if (!j.is_array()) return type_error(path, "array");
    out.clear();
    out.reserve(j.size());
    for (size_t i = 0; i < j.size(); ++i) {
      typename T::value_type v{};
      TW_TRY(decode(j[i], v, path + "[" + std::to_string(i) + "]"));
      out.push_back(std::move(v));
    }
    return {};
  } else if constexpr (is_map<T>::value) {
    if (!j.is_object()) return type_error(path, "object");
    out.clear();
    for (auto it = j.begin(); it != j.end(); ++it) {
      typename T::mapped_type v{};
      TW_TRY(decode(it.value(), v, path + "." + it.key()));
      out.emplace(it.key(), std::move(v));
    }
    return {};
  } else if constexpr (has_fields<T>::value) {
    return decode_object(j, out, path);
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (!j.is_string()) return type_error(path, "string");
    out = j.get<std::string>();
    return {};
  } else if constexpr (std::is_same_v<T, bool>) {
    if (!j.is_boolean()) return type_error(path, "boolean");
    out = j.get<bool>();
    return {};
  } else if constexpr (std::is_integral_v<T>) {
    if (j.is_number_integer()) {
      if (j.is_number_unsigned()) {
        auto u = j.get<uint64_t>();
        if (u > static_cast<uint64_t>(std::numeric_limits<T>::max()))
          return type_error(path, "integer in range");
        out = static_cast<T>(u);
      } else {
        auto v = j.get<int64_t>();
        if (v < static_cast<int64_t>(std::numeric_limits<T>::min()) ||
            (v > 0 &&
             static_cast<uint64_t>(v) > static_cast<uint64_t>(std::numeric_limits<T>::max())))
          return type_error(path, "integer in range");
        out = static_cast<T>(v);
      }
      return {};
    }
    if (j.is_number_float()) {  // JSON Schema: 1.0 is an integer
      double d = j.get<double>();
      if (std::floor(d) != d || d < static_cast<double>(std::numeric_limits<T>::min()) ||
          d > static_cast<double>(std::numeric_limits<T>::max()))
        return type_error(path, "integer");
      out = static_cast<T>(d);
      return {};
    }
    return type_error(path, "integer");
  } else if constexpr (std::is_floating_point_v<T>) {
    if (!j.is_number()) return type_error(path, "number");
    out = j.get<T>();
    return {};
  } else if constexpr (std::is_same_v<T, nlohmann::json>) {
    out = j;
    return {};
  } else {
    static_assert(sizeof(T) == 0, "typed_args: unsupported member type");
  }
}

}  // namespace typed_detail

// The JSON Schema of an argument struct.
template <class T>
nlohmann::json schema_of() {
  return typed_detail::object_schema<T>();
}

// Decodes arguments into T; errors carry the JSON path ("$.where.city").
template <class T>
Result<T> decode_args(const nlohmann::json& j) {
  T out{};
  Status st = typed_detail::decode(j, out, "$");
  if (!st) return st.error();
  return out;
}

// A ToolSpec whose schema comes from T and whose handler gets a decoded T.
template <class T, class F>
ToolSpec typed_tool(std::string name, std::string description, F fn) {
  ToolSpec spec;
  spec.name = std::move(name);
  spec.description = std::move(description);
  spec.input_schema = schema_of<T>().dump();
  spec.handler =
      SyncHandler([fn = std::move(fn)](const nlohmann::json& args, ToolContext& ctx) -> ToolOutput {
        Result<T> a = decode_args<T>(args);
        if (!a) return ToolOutput::error("invalid arguments: " + a.error().to_string());
        return fn(*a, ctx);
      });
  return spec;
}

}  // namespace toolwire::tools
