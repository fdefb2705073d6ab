#!/usr/bin/env python3
"""Fails when a dialect's name appears in the gateway library's sources.

The gateway serves every dialect through its entry in the dialect list
(src/dialects/<name>/entry.h, include/toolwire/dialects/ingress.h); a name
written in src/gateway/ or include/toolwire/gateway/ — in code, a string or a
comment — is a rule about one dialect living in the wrong place. The names are
read from the dialect folders: each codec's kDialect and each entry's alias.
A name counts in any case ("OpenAI", "openai_chat"); an alias written all in
lower case counts inside a string or after '/' ("openai", /responses), since
an alias may also be an ordinary word ("notifications and responses").

    python3 tests/layering/check_dialect_names.py [--root DIR]

Exit status 0 when clean, 1 with one line per hit on stdout otherwise.
"""
import argparse
import os
import re
import sys

CHECKED = ("src/gateway", "include/toolwire/gateway")
SOURCE_EXTS = (".h", ".cc", ".md", ".txt")


def dialect_names(root):
    """(every name and alias, the codec names), from src/dialects/<name>/."""
    names, codec_names = set(), set()
    base = os.path.join(root, "src", "dialects")
    for folder in sorted(os.listdir(base)):
        entry = os.path.join(base, folder, "entry.h")
        if not os.path.isfile(entry):
            continue
        names.add(folder)
        codec_names.add(folder)
        for path in (entry, os.path.join(base, folder, "wire.h")):
            if not os.path.isfile(path):
                continue
            text = open(path, encoding="utf-8").read()
            found = re.findall(r'kDialect\s*=\s*"([^"]+)"', text)
            names.update(found)
            codec_names.update(found)
            names.update(re.findall(r'\.alias\s*=\s*"([^"]+)"', text))
    return names, codec_names


def counts(line, m, codec_names):
    text = m.group(1)
    if text.lower() in codec_names or text != text.lower():
        return True
    before = line[:m.start()]
    return before.endswith("/") or before.count('"') % 2 == 1


def hits(root, names, codec_names):
    word = re.compile(r"(?<![A-Za-z0-9_])(" + "|".join(sorted(map(re.escape, names))) +
                      r")(?![A-Za-z0-9_])", re.IGNORECASE)
    for top in CHECKED:
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for f in sorted(files):
                if not f.endswith(SOURCE_EXTS):
                    continue
                path = os.path.join(dirpath, f)
                for n, line in enumerate(open(path, encoding="utf-8"), 1):
                    for m in word.finditer(line):
                        if counts(line, m, codec_names):
                            yield f"{os.path.relpath(path, root)}:{n}: '{m.group(1)}': {line.strip()}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default=os.path.join(os.path.dirname(__file__), "..", ".."))
    args = ap.parse_args()
    names, codec_names = dialect_names(args.root)
    if len(names) < 2:
        print(f"found only {sorted(names)} as dialect names under src/dialects: the check is blind")
        return 1
    found = list(hits(args.root, names, codec_names))
    for line in found:
        print(line)
    if found:
        print(f"{len(found)} dialect names in the gateway's sources: move the rule into the "
              "dialect's entry (src/dialects/<name>/entry.h)")
        return 1
    print(f"dialect names ok: none of {len(names)} in {', '.join(CHECKED)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
