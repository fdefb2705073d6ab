// `toolwire convert`: translate a request, response or SSE stream between
// dialects, stdin to stdout. Warnings and errors go to stderr; a bad input
// exits non-zero with an error naming the JSON path.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>

#include "cli/commands.h"
#include "toolwire/dialects/codec.h"
#include "toolwire/dialects/dialect.h"

namespace toolwire::cli {
namespace {

struct ConvertOptions {
  std::string from, to, kind = "request";
};

int fail(const Error& e) {
  std::cerr << "toolwire convert: " << to_string(e.code) << ": " << e.to_string() << "\n";
  return 1;
}

// One read(2) of whatever stdin has now (at most `cap` bytes): 0 at end of
// input, -1 on an error. Unlike fread, it returns as soon as any bytes arrive,
// so a stream is translated while it flows.
ssize_t read_some(char* buf, size_t cap) {
  while (true) {
    ssize_t n = ::read(STDIN_FILENO, buf, cap);
    if (n >= 0 || errno != EINTR) return n;
  }
}

Error read_error() {
  return make_error(ErrorCode::unavailable, std::string("reading stdin: ") + std::strerror(errno));
}

// All of stdin in large blocks (a synced std::cin reads one byte per call).
Result<std::string> read_all_stdin() {
  std::string input;
  size_t used = 0;
  while (true) {
    if (input.size() - used < (1 << 16)) input.resize(std::max<size_t>(input.size() * 2, 1 << 20));
    ssize_t n = read_some(input.data() + used, input.size() - used);
    if (n < 0) return read_error();
    if (n == 0) break;
    used += static_cast<size_t>(n);
  }
  input.resize(used);
  return input;
}

void print_warnings(const Warnings& warnings) {
  for (const auto& w : warnings)
    std::cerr << "warning: " << w.code << (w.path.empty() ? "" : " at " + w.path) << ": "
              << w.message << "\n";
}

bool has_codec(const dialects::Dialect& d) { return d.has_codec(); }

int run_convert(const ConvertOptions& opt) {
  const dialects::Codec* from = dialects::find_codec(opt.from);
  const dialects::Codec* to = dialects::find_codec(opt.to);
  if (!from || !to) {
    std::cerr << "toolwire convert: unknown dialect '" << (from ? opt.to : opt.from)
              << "' (known: " << dialects::dialect_names(&has_codec, ", ") << ")\n";
    return 2;
  }
  Warnings warnings;
  if (opt.kind == "stream") {
    auto decoder = from->make_stream_decoder();
    auto encoder = to->make_stream_encoder();
    std::vector<ir::StreamEvent> events;
    std::string out;
    char buf[1 << 16];
    auto flush = [&] {
      for (const auto& e : events) encoder->encode(e, out);
      events.clear();
      std::fwrite(out.data(), 1, out.size(), stdout);
      std::fflush(stdout);  // forward each piece as soon as it is translated
      out.clear();
    };
    ssize_t n;
    while ((n = read_some(buf, sizeof buf)) > 0) {
      Status st = decoder->feed(std::string_view(buf, static_cast<size_t>(n)), events);
      flush();
      if (!st) return fail(st.error());
    }
    if (n < 0) return fail(read_error());
    Status st = decoder->finish(events);
    flush();
    print_warnings(decoder->warnings());  // what no IR event carries
    print_warnings(encoder->warnings());
    return st ? 0 : fail(st.error());
  }
  auto in = read_all_stdin();
  if (!in) return fail(in.error());
  const std::string& input = *in;
  Result<std::string> out = make_error(ErrorCode::internal, "unreachable");
  if (opt.kind == "request") {
    out = dialects::translate_request(*from, *to, input, warnings);
  } else {
    auto resp = from->decode_response(input, warnings);
    if (!resp) return fail(resp.error());
    out = to->encode_response(*resp, warnings);
  }
  if (!out) return fail(out.error());
  print_warnings(warnings);
  std::cout << *out << "\n";
  return 0;
}

}  // namespace

void add_convert_command(CLI::App& app) {
  auto opt = std::make_shared<ConvertOptions>();
  CLI::App* cmd = app.add_subcommand(
      "convert",
      "Translate a request, response or stream (SSE or AWS event stream) between dialects (stdin "
      "to stdout)");
  const std::string names = dialects::dialect_names(&has_codec);
  cmd->add_option("--from", opt->from, "Source dialect: " + names)->required();
  cmd->add_option("--to", opt->to, "Target dialect: " + names)->required();
  cmd->add_option("--kind", opt->kind, "request | response | stream")
      ->check(CLI::IsMember({"request", "response", "stream"}));
  cmd->callback([opt] { std::exit(run_convert(*opt)); });
}

}  // namespace toolwire::cli
