// The subcommands of the `toolwire` executable. Each lives in its own file and
// registers itself on the CLI11 app in main.cc's explicit list.
#pragma once

#include <CLI/CLI.hpp>
#include <charconv>
#include <string>

namespace toolwire::cli {

// Exit statuses, one table for every subcommand (docs/cli.md).
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;        // the command line was fine, the work failed
inline constexpr int kExitUsage = 2;          // the command line was wrong
inline constexpr int kExitInterrupted = 130;  // chat: Ctrl-C while idle

void add_convert_command(CLI::App& app);
void add_tools_command(CLI::App& app);
void add_chat_command(CLI::App& app);
void add_serve_command(CLI::App& app);
void add_parse_command(CLI::App& app);
void add_mcp_command(CLI::App& app);

// "mimalloc 2.0.9" or "system malloc": what the executable allocates with
// (allocator.cc), shown by --version.
std::string allocator_name();

// An integer flag's range, named in words when a value is outside it (CLI11's
// PositiveNumber prints the limits of a double, 300 digits wide).
inline CLI::Validator int_between(long long lo, long long hi) {
  std::string range = std::to_string(lo) + " and " + std::to_string(hi);
  return CLI::Validator(
      [lo, hi, range](std::string& s) -> std::string {
        long long v = 0;
        auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        if (ec != std::errc() || end != s.data() + s.size() || v < lo || v > hi)
          return "must be between " + range;
        return {};
      },
      "INT between " + range);
}

}  // namespace toolwire::cli
