#!/usr/bin/env python3
"""Checks the #include lines of src/<folder> and include/toolwire/<folder>
against the layer table in docs/ARCHITECTURE.md (the table whose header is
"| folder | library | may include |"). The document is the rule: this script
only reads it.

A folder may include headers of its own folder and of the folders its row
lists. A header under src/ is private: only folders of the same library may
include it, and no public header (include/toolwire/) may. Every folder under
src/ and include/toolwire/ must have a row. An include that resolves to no
file fails too, unless it is a generated file named in GENERATED.

With --links FILE (written by src/CMakeLists.txt: "lib: dep dep" per line),
each library may link only the libraries of the folders its folders may
include: a link the table does not allow fails as an include would.

    python3 tests/layering/check_layering.py [--root DIR] [--doc FILE] [--links FILE]

Exit status 0 when clean, 1 with one line per violation on stdout otherwise.
"""
import argparse
import os
import re
import sys

# Files the build generates into an include directory of the folder's target.
GENERATED = {"builtin_profiles.inc"}
SOURCE_EXTS = (".h", ".hpp", ".cc", ".cpp", ".inc")
TABLE_HEADER = re.compile(r"^\|\s*folder\s*\|\s*library\s*\|\s*may include\s*\|")
INCLUDE = re.compile(r'^\s*#\s*include\s*(?:"([^"]+)"|<(toolwire/[^>]+)>)')
NAME = re.compile(r"`([^`]+)`")


class Rules:
    def __init__(self):
        self.library = {}  # folder -> library
        self.allowed = {}  # folder -> set of folders it may include


def parse_table(doc_path):
    """The layer table of the document, as Rules; raises ValueError on a bad table."""
    rules = Rules()
    with open(doc_path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    start = next((i for i, line in enumerate(lines) if TABLE_HEADER.match(line)), None)
    if start is None:
        raise ValueError(f"{doc_path}: no '| folder | library | may include |' table")
    for line in lines[start + 2:]:  # past the header and the |---| row
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 3:
            raise ValueError(f"{doc_path}: layer table row with fewer than 3 cells: {line}")
        folder, library = NAME.findall(cells[0]), NAME.findall(cells[1])
        if len(folder) != 1 or len(library) != 1:
            raise ValueError(f"{doc_path}: row needs one `folder` and one `library`: {line}")
        rules.library[folder[0]] = library[0]
        rules.allowed[folder[0]] = set(NAME.findall(cells[2]))
    for folder, allowed in rules.allowed.items():
        unknown = allowed - rules.library.keys()
        if unknown:
            raise ValueError(f"{doc_path}: `{folder}` may include unknown folders {sorted(unknown)}")
    return rules


def folder_of(root, path):
    """('src' | 'include', folder) for a file under src/ or include/toolwire/, else None."""
    rel = os.path.relpath(os.path.realpath(path), os.path.realpath(root)).split(os.sep)
    if len(rel) >= 3 and rel[0] == "src":
        return "src", rel[1]
    if len(rel) >= 4 and rel[0] == "include" and rel[1] == "toolwire":
        return "include", rel[2]
    return None


def resolve(root, including_file, name):
    """The file an include names, searched the way the build does: the including
    file's folder, then include/, then src/ (each library's private root links
    its own src folders; the table decides which of them it may use)."""
    for base in (os.path.dirname(including_file), os.path.join(root, "include"),
                 os.path.join(root, "src")):
        candidate = os.path.normpath(os.path.join(base, name))
        if os.path.isfile(candidate):
            return candidate
    return None


def source_files(root):
    """(path, (area, folder)) for every source file under src/ and include/toolwire/."""
    for area_dir in (os.path.join(root, "src"), os.path.join(root, "include", "toolwire")):
        for dirpath, dirnames, files in os.walk(area_dir):
            dirnames.sort()
            for name in sorted(files):
                if name.endswith(SOURCE_EXTS):
                    path = os.path.join(dirpath, name)
                    where = folder_of(root, path)
                    if where:
                        yield path, where


def check(root, rules):
    """Violations, one line each: 'file:line: message'."""
    problems = []
    seen_folders = set()
    for path, (area, folder) in source_files(root):
        seen_folders.add(folder)
        rel_path = os.path.relpath(path, root)
        if folder not in rules.library:
            continue  # reported once below
        with open(path, encoding="utf-8", errors="replace") as f:
            for lineno, line in enumerate(f, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                name = m.group(1) or m.group(2)
                where = f"{rel_path}:{lineno}"
                target = resolve(root, path, name)
                if target is None:
                    if os.path.basename(name) not in GENERATED:
                        problems.append(f"{where}: #include \"{name}\" names no file in the tree")
                    continue
                target_where = folder_of(root, target)
                if target_where is None:
                    problems.append(f"{where}: #include \"{name}\" reaches outside src/ and "
                                    "include/toolwire/")
                    continue
                t_area, t_folder = target_where
                if t_folder not in rules.library:
                    continue  # the target's folder is reported once below
                if t_folder != folder and t_folder not in rules.allowed[folder]:
                    problems.append(f"{where}: `{folder}` may not include `{t_folder}` "
                                    f"(\"{name}\"; docs/ARCHITECTURE.md, layer table)")
                    continue
                if t_area == "src":
                    if area == "include":
                        problems.append(f"{where}: public header includes private header "
                                        f"\"{name}\"")
                    elif rules.library[t_folder] != rules.library[folder]:
                        problems.append(f"{where}: \"{name}\" is private to "
                                        f"{rules.library[t_folder]}")
    for folder in sorted(seen_folders - rules.library.keys()):
        problems.append(f"folder `{folder}` (src/ or include/toolwire/) has no row in the layer "
                        "table of docs/ARCHITECTURE.md")
    return problems


def check_links(links_path, rules):
    """Violations of the link list: a library linking one its folders may not include."""
    problems = []
    with open(links_path, encoding="utf-8") as f:
        for line in f:
            if ":" not in line:
                continue
            lib, deps = line.split(":", 1)
            lib = lib.strip()
            folders = [f for f, l in rules.library.items() if l == lib]
            if not folders:
                continue  # a library outside the table (a test helper)
            allowed = {lib}
            for folder in folders:
                allowed |= {rules.library[a] for a in rules.allowed[folder]}
            for dep in deps.split():
                if dep not in allowed:
                    problems.append(f"{os.path.basename(links_path)}: {lib} links {dep}, which "
                                    "none of its folders may include (docs/ARCHITECTURE.md, "
                                    "layer table)")
    return problems


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", default=os.path.normpath(os.path.join(here, "..", "..")))
    parser.add_argument("--doc", help="default: ROOT/docs/ARCHITECTURE.md")
    parser.add_argument("--links", help="the build's toolwire_links.txt")
    args = parser.parse_args(argv)
    doc = args.doc or os.path.join(args.root, "docs", "ARCHITECTURE.md")
    try:
        rules = parse_table(doc)
    except (OSError, ValueError) as e:
        print(e)
        return 1
    problems = check(args.root, rules)
    if args.links:
        try:
            problems += check_links(args.links, rules)
        except OSError as e:
            problems.append(str(e))
    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} layering violation(s)")
        return 1
    files = sum(1 for _ in source_files(args.root))
    print(f"layering ok: {files} files, {len(rules.library)} folders")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
