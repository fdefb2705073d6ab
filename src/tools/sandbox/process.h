// Private: run one program with argv (never through a shell) in its own
// process group, with a deadline, capped output and a SIGTERM → SIGKILL
// sequence that takes the whole group down. Used by `shell` and `grep`.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "toolwire/core/result.h"
#include "toolwire/tools/tool.h"

namespace toolwire::tools::detail {

struct ProcessSpec {
  std::string program;            // absolute path, exec'd as is
  std::vector<std::string> argv;  // argv[0] included
  std::vector<std::string> env;   // complete environment ("K=V"); nothing inherited
  int cwd_fd = -1;                // fchdir target in the child (-1: inherit cwd)
  int stdin_fd = -1;              // -1: /dev/null
  std::chrono::milliseconds timeout{30000};
  std::chrono::milliseconds kill_grace{2000};  // SIGTERM → SIGKILL
  size_t max_stdout = 64 * 1024;               // reaching either cap ends the process group
  size_t max_stderr = 16 * 1024;
  const CancellationToken* cancel = nullptr;  // polled; cancel ends the group too
};

struct ProcessResult {
  std::string out, err;
  bool out_truncated = false, err_truncated = false;
  bool timed_out = false;
  bool cancelled = false;
  bool sent_sigkill = false;  // the group needed SIGKILL
  int exit_code = -1;         // when it exited normally
  int term_signal = 0;        // when a signal ended it
  std::chrono::milliseconds elapsed{0};
};

// Fails only when the process cannot be started.
Result<ProcessResult> run_process(const ProcessSpec& spec);

// Finds an executable regular file called `name` in the colon-separated
// `search_path`; empty when none.
std::string find_program(const std::string& name, const std::string& search_path);

}  // namespace toolwire::tools::detail
