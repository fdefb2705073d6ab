// The subcommands of the `toolwire` executable. Each lives in its own file and
// registers itself on the CLI11 app in main.cc's explicit list.
#pragma once

#include <CLI/CLI.hpp>

namespace toolwire::cli {

void add_convert_command(CLI::App& app);
void add_tools_command(CLI::App& app);
void add_chat_command(CLI::App& app);
void add_serve_command(CLI::App& app);

}  // namespace toolwire::cli
