// toolwire — LLM tool-calling runtime and gateway.
#include <cstdio>

#include "cli/commands.h"

int main(int argc, char** argv) {
  CLI::App app{"toolwire: one IR and a codec per LLM wire dialect, tools, agent loop, gateway"};
  app.require_subcommand(1);
  toolwire::cli::add_convert_command(app);
  toolwire::cli::add_tools_command(app);
  toolwire::cli::add_chat_command(app);
  toolwire::cli::add_serve_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  return 0;
}
