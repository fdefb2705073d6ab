// toolwire — LLM tool-calling runtime and gateway.
#include <cstdio>

#include "cli/commands.h"

int main(int argc, char** argv) {
  CLI::App app{"toolwire: one IR and a codec per LLM wire dialect, tools, agent loop, gateway"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "toolwire " TOOLWIRE_VERSION);
  toolwire::cli::add_convert_command(app);
  toolwire::cli::add_tools_command(app);
  toolwire::cli::add_chat_command(app);
  toolwire::cli::add_serve_command(app);
  // CLI11 would print the top-level help and exit 0 for `toolwire nosuch --help`.
  if (argc > 1 && argv[1][0] != '-') {
    bool known = false;
    for (const auto* sub : app.get_subcommands({}))
      if (sub->get_name() == argv[1]) known = true;
    if (!known) {
      std::fprintf(stderr, "toolwire: unknown command %s (see toolwire --help)\n", argv[1]);
      return 2;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  return 0;
}
