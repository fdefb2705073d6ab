#!/usr/bin/env python3
"""The layering check fails where it should: run on tests/layering/fixture, it
reports every bad_* file, no ok_* file, and the folder with no table row."""
import io
import os
import sys
import unittest
from contextlib import redirect_stdout

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import check_layering  # noqa: E402

FIXTURE = os.path.join(HERE, "fixture")


class CheckLayeringTest(unittest.TestCase):
    def run_check(self):
        out = io.StringIO()
        with redirect_stdout(out):
            rc = check_layering.main(["--root", FIXTURE, "--doc",
                                      os.path.join(FIXTURE, "ARCHITECTURE.md")])
        return rc, out.getvalue().splitlines()

    def test_every_bad_file_and_only_those(self):
        rc, lines = self.run_check()
        self.assertEqual(rc, 1)
        files = {os.path.basename(line.split(":", 1)[0]) for line in lines if ".cc:" in line
                 or ".h:" in line}
        bad = set()
        for dirpath, _, names in os.walk(FIXTURE):
            bad |= {n for n in names if n.startswith("bad_")}
        self.assertEqual(files, bad)
        self.assertIn("folder `extra` (src/ or include/toolwire/) has no row in the layer table "
                      "of docs/ARCHITECTURE.md", lines)

    def test_messages_name_the_rule(self):
        _, lines = self.run_check()
        text = "\n".join(lines)
        self.assertIn("bad_up.cc:2: `core` may not include `tools`", text)
        self.assertIn("bad_sideways.cc:2: `core` may not include `ir`", text)
        self.assertIn("bad_private.cc:3: \"core/private.h\" is private to lib_core", text)
        self.assertIn("bad_relative.cc:2: \"../core/private.h\" is private to lib_core", text)
        self.assertIn("bad_missing.cc:2: #include \"tools/missing.h\" names no file", text)
        self.assertIn("bad_public.h:3: public header includes private header", text)

    def test_a_link_the_table_does_not_allow(self):
        rules = check_layering.parse_table(os.path.join(FIXTURE, "ARCHITECTURE.md"))
        problems = check_layering.check_links(os.path.join(HERE, "fixture_links.txt"), rules)
        self.assertEqual(problems, [
            "fixture_links.txt: lib_core links lib_tools, which none of its folders may "
            "include (docs/ARCHITECTURE.md, layer table)"])

    def test_the_repository_table_parses(self):
        rules = check_layering.parse_table(
            os.path.join(HERE, "..", "..", "docs", "ARCHITECTURE.md"))
        self.assertEqual(rules.library["dialects"], "toolwire_dialects")
        self.assertNotIn("agent", rules.allowed["provider"])


if __name__ == "__main__":
    unittest.main()
