#include "gateway/replay/recorder.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "gateway/replay/normalize.h"

namespace toolwire::gateway::replay {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// FNV-1a: a stable short name for a request's key.
uint32_t fnv1a(std::string_view s) {
  uint32_t h = 2166136261u;
  for (unsigned char c : s) h = (h ^ c) * 16777619u;
  return h;
}

// The end of the first complete SSE event in `s` (after its blank line), or 0.
size_t event_end(std::string_view s) {
  size_t lf = s.find("\n\n"), crlf = s.find("\r\n\r\n");
  if (lf == std::string_view::npos && crlf == std::string_view::npos) return 0;
  if (crlf == std::string_view::npos || (lf != std::string_view::npos && lf < crlf)) return lf + 2;
  return crlf + 4;
}

}  // namespace

struct Recorder::Tape {
  Exchange e;
  Clock::time_point start = Clock::now();
  bool events = false;  // an SSE body: recorded event by event
  std::string pending;  // an SSE event not yet complete

  void add(std::string_view bytes) {
    if (!events) {
      e.chunks.push_back({ms_since(start), std::string(bytes)});
      return;
    }
    pending.append(bytes);
    size_t used = 0;
    for (size_t n; (n = event_end(std::string_view(pending).substr(used))) != 0; used += n)
      e.chunks.push_back({ms_since(start), pending.substr(used, n)});
    pending.erase(0, used);
  }
  void flush() {
    if (!pending.empty()) e.chunks.push_back({ms_since(start), std::move(pending)});
    pending.clear();
  }
};

Result<std::unique_ptr<Recorder>> Recorder::open(transport::HttpTransport& inner, std::string dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir, ec))
    return make_error(ErrorCode::failed_precondition,
                      "record: cannot create the folder " + dir + ": " + ec.message());
  uint64_t next = 1;
  for (const auto& entry : fs::directory_iterator(dir, ec))
    if (entry.path().extension() == ".json") ++next;
  return std::unique_ptr<Recorder>(new Recorder(inner, std::move(dir), next));
}

Recorder::Recorder(transport::HttpTransport& inner, std::string dir, uint64_t next)
    : inner_(inner), dir_(std::move(dir)), next_(next) {}

transport::HttpCall Recorder::start(transport::HttpRequest request, transport::HttpCallbacks cb) {
  auto tape = std::make_shared<Tape>();
  tape->e.method = request.method;
  tape->e.target = request_target(request.url);
  tape->e.body = request.body;  // headers (keys, signatures) are never kept
  transport::HttpCallbacks wrapped;
  wrapped.on_head = [tape, next = cb.on_head](const transport::HttpResponseHead& h) {
    tape->e.status = h.status;
    tape->e.head_ms = ms_since(tape->start);
    for (const auto& [k, v] : h.headers) {
      if (secret_header(k)) continue;
      tape->e.headers.emplace_back(k, v);
      if (transport::iequals(k, "content-type") && v.find("text/event-stream") != std::string::npos)
        tape->events = true;
    }
    return next ? next(h) : true;
  };
  wrapped.on_body = [tape, next = cb.on_body](std::string_view bytes) {
    tape->add(bytes);
    return next ? next(bytes) : true;
  };
  wrapped.on_complete = [this, tape, next = cb.on_complete](const Status& s,
                                                            const transport::HttpStats& stats) {
    if (s.ok() && tape->e.status != 0) {
      tape->flush();
      save(tape->e);
    }
    if (next) next(s, stats);
  };
  return inner_.start(std::move(request), std::move(wrapped));
}

void Recorder::save(const Exchange& e) {
  const RequestKey key = normalize_request(e.method, e.target, e.body);
  const std::string text = to_file(e);
  std::lock_guard lock(mu_);
  char name[48];
  std::snprintf(name, sizeof name, "%06llu-%08x.json", static_cast<unsigned long long>(next_++),
                fnv1a(key.text()));
  const std::string path = dir_ + "/" + name, tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out.flush()) {
      std::fprintf(stderr, "toolwire serve: record: cannot write %s\n", tmp.c_str());
      return;
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) std::fprintf(stderr, "toolwire serve: record: cannot write %s\n", path.c_str());
}

}  // namespace toolwire::gateway::replay
