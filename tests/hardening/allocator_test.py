"""The executable's allocator (src/cli/allocator.cc, TOOLWIRE_MALLOC).

`toolwire --version` names the allocator the build linked. Where that is
mimalloc, a gateway that has served requests has it mapped (it takes malloc
from glibc by symbol interposition: linked before libc), and it serves
whole and streamed answers like any other; a build on the system's malloc
never maps it.

usage: allocator_test.py TOOLWIRE_BINARY
"""
import os
import re
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import Gateway, chat_body  # noqa: E402


def version():
    out = subprocess.run([harness.BINARY, "--version"], capture_output=True, text=True,
                         timeout=harness.WAIT, check=True).stdout
    m = re.fullmatch(r"toolwire \S+ \(allocator: (mimalloc \d+\.\d+\.\d+|system malloc)\)\n", out)
    if not m:
        raise AssertionError(f"unexpected --version: {out!r}")
    return m.group(1)


class Allocator(unittest.TestCase):
    def test_the_allocator_named_by_version_is_the_one_mapped(self):
        allocator = version()
        up = harness.Upstream(default=lambda h, body: h.stream_text("h", "i") if body.get("stream")
                              else h.json(200, harness.completion("hi")))
        gw = Gateway("--upstream", f"openai={up.base_url}")
        try:
            for stream in (False, True, False):
                status, _, body = gw.request("POST", "/v1/chat/completions",
                                             chat_body(stream=stream))
                self.assertEqual(status, 200, body)
            with open(f"/proc/{gw.pid}/maps") as f:
                mapped = "libmimalloc" in f.read()
            self.assertEqual(mapped, allocator.startswith("mimalloc"), allocator)
            self.assertTrue(gw.alive())
        finally:
            gw.stop()
            up.stop()


if __name__ == "__main__":
    harness.run()
