// enum_names.h — an enum's names as one table of rows instead of a switch per
// enum: to_string and parse read the same rows, so they cannot disagree.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace toolwire {

template <class E>
struct EnumName {
  E value;
  std::string_view name;
};

// The name of `value`'s row, or `fallback` when no row has it.
template <class E, size_t N>
constexpr std::string_view name_of(const EnumName<E> (&rows)[N], E value,
                                   std::string_view fallback) {
  for (const EnumName<E>& row : rows)
    if (row.value == value) return row.name;
  return fallback;
}

// The value whose row is named `name`.
template <class E, size_t N>
constexpr std::optional<E> value_named(const EnumName<E> (&rows)[N], std::string_view name) {
  for (const EnumName<E>& row : rows)
    if (row.name == name) return row.value;
  return std::nullopt;
}

}  // namespace toolwire
