// `toolwire parse --format FAMILY [--tools TOOLS.json] [--events]`: a model's raw
// output on stdin, its text, reasoning and tool calls on stdout (one JSON
// object, or the stream events as JSON lines). Errors found in the output are
// data (exit 0); a wrong command line — an unknown family, a tools file that
// cannot be read or is not a list of tool definitions — exits 2.
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "cli/commands.h"
#include "toolwire/textformats/parser.h"
#include "toolwire/textformats/summary.h"
#include "toolwire/textformats/tool_set.h"

namespace toolwire::cli {
namespace {

struct ParseOptions {
  std::string format;
  std::string tools_path;
  bool events = false;
};

int usage(const std::string& message) {
  std::cerr << "toolwire parse: " << message << "\n";
  return kExitUsage;
}

int run_parse(const ParseOptions& opt) {
  textformats::ToolSet tools;
  if (!opt.tools_path.empty()) {
    std::ifstream in(opt.tools_path, std::ios::binary);
    if (!in) return usage("--tools: cannot read " + opt.tools_path);
    std::stringstream ss;
    ss << in.rdbuf();
    auto set = textformats::ToolSet::from_json(ss.str());
    if (!set) return usage("--tools: " + set.error().to_string());
    tools = std::move(*set);
  }
  auto parser = textformats::make_parser(opt.format, opt.tools_path.empty() ? nullptr : &tools);
  if (!parser) return usage("--format: " + parser.error().message);

  textformats::ParseOutput out;
  size_t printed_events = 0, printed_errors = 0;
  auto print_new = [&] {
    if (!opt.events) return;
    for (; printed_events < out.events.size(); ++printed_events)
      std::cout << textformats::event_to_json(out.events[printed_events]) << "\n";
    for (; printed_errors < out.errors.size(); ++printed_errors)
      std::cout << textformats::error_to_json(out.errors[printed_errors]) << "\n";
    std::cout.flush();
  };
  // Fed as it arrives, so --events shows a live stream as it is parsed.
  std::string buf(1 << 16, '\0');
  while (true) {
    ssize_t n = ::read(STDIN_FILENO, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      std::cerr << "toolwire parse: reading stdin: " << std::strerror(errno) << "\n";
      return kExitFailure;
    }
    if (n == 0) break;
    (*parser)->feed(std::string_view(buf.data(), static_cast<size_t>(n)), out);
    print_new();
  }
  (*parser)->finish(out);
  print_new();
  if (!opt.events) std::cout << textformats::to_json(textformats::summarize(out)) << "\n";
  return kExitOk;
}

}  // namespace

void add_parse_command(CLI::App& app) {
  auto opt = std::make_shared<ParseOptions>();
  CLI::App* cmd = app.add_subcommand(
      "parse", "Parse a model's raw output (stdin) written in a tool-call text format");
  cmd->add_option("--format", opt->format, "The format family (docs/textformats.md)")->required();
  cmd->add_option("--tools", opt->tools_path,
                  "A JSON array of OpenAI-style tool definitions: types values, checks arguments");
  cmd->add_flag("--events", opt->events, "Print the stream events as JSON lines");
  cmd->callback([opt] { std::exit(run_parse(*opt)); });
}

}  // namespace toolwire::cli
