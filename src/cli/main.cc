// toolwire — LLM tool-calling runtime and gateway.
#include <iostream>
#include <string_view>

#include "cli/commands.h"

namespace {

// CLI11 prints the top-level help for `toolwire NAME --help` and exits 0 when
// NAME is no command; this names it instead. Only the apps with subcommands
// (toolwire, toolwire tools) are walked, and they take no option with a value,
// so the first word that is not a flag is the command.
bool unknown_command(const CLI::App& app, int argc, char** argv) {
  const CLI::App* at = &app;
  std::string path = "toolwire";
  for (int i = 1; i < argc && !at->get_subcommands({}).empty(); ++i) {
    std::string_view arg = argv[i];
    if (arg.starts_with("-")) continue;
    const CLI::App* next = nullptr;
    for (const CLI::App* sub : at->get_subcommands({}))
      if (sub->check_name(std::string(arg))) next = sub;
    if (!next) {
      std::cerr << path << ": unknown command " << arg << "\nRun " << path
                << " --help for the commands.\n";
      return true;
    }
    at = next;
    path += " " + std::string(arg);
  }
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  namespace cli = toolwire::cli;
  CLI::App app{"toolwire: one IR and a codec per LLM wire dialect, tools, agent loop, gateway"};
  app.require_subcommand(1);
  app.set_version_flag("--version",
                       "toolwire " TOOLWIRE_VERSION " (allocator: " + cli::allocator_name() + ")");
  cli::add_convert_command(app);
  cli::add_tools_command(app);
  cli::add_chat_command(app);
  cli::add_serve_command(app);
  cli::add_parse_command(app);
  cli::add_mcp_command(app);
  if (unknown_command(app, argc, argv)) return cli::kExitUsage;
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // app.exit prints the message (help and version on stdout, errors on
    // stderr); CLI11's own codes (105, 106, 109, ...) become the one usage code.
    int code = app.exit(e);
    return code == 0 ? cli::kExitOk : cli::kExitUsage;
  }
  return cli::kExitOk;
}
