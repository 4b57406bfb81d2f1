#!/usr/bin/env python3
"""layers.py SOURCE_DIR - the folders are the layers of the house: a file
includes only headers of its own folder or of a layer below its own.
Layers, bottom up (README.md, "What is here"): base/, format/, fusion/,
interp/, then collect/ (with its public include/), analyze/ and sql/ext/ side
by side (none includes another's files), then tools/ and adapters/.  tests/
and bench/ may include anything.  Prints every include against the layers
and fails if there is one."""
import os
import re
import sys

LAYERS = [("base/", 0), ("format/", 1), ("fusion/", 2), ("interp/", 3),
          ("include/", 4), ("collect/", 4), ("analyze/", 4), ("sql/ext/", 4),
          ("tools/", 5), ("adapters/", 5)]
PEERS = {"include/": "collect/"}  # the public API is collect/'s own
INCLUDE = re.compile(r'^\s*#\s*include\s*(?:"([^"]+)"|<(pulley/[^>]+)>)', re.M)


def layer(path):
    for prefix, level in LAYERS:
        if path.startswith(prefix):
            return PEERS.get(prefix, prefix), level
    return None, None  # tests/, bench/, ...: above everything


def main():
    top = sys.argv[1]
    files = []
    for root, dirs, names in os.walk(top):
        rel = os.path.relpath(root, top)
        dirs[:] = [d for d in dirs if not d.startswith((".", "build"))]
        for n in names:
            if n.endswith((".c", ".h", ".def")):
                files.append(os.path.normpath(os.path.join(rel, n)).replace(os.sep, "/"))
    by_name = {}
    for f in files:
        by_name.setdefault(os.path.basename(f), []).append(f)
    bad = 0
    for f in sorted(files):
        room, level = layer(f)
        if room is None:
            continue
        with open(os.path.join(top, f), errors="replace") as src:
            text = src.read()
        for m in INCLUDE.finditer(text):
            inc = m.group(1) or m.group(2)
            found = [c for c in by_name.get(os.path.basename(inc), []) if c.endswith(inc)]
            if not found:
                continue  # a system or generated header
            ok = False
            for c in found:
                croom, clevel = layer(c)
                if clevel is not None and (croom == room or clevel < level):
                    ok = True
            if not ok:
                print(f"{f}: includes {inc} ({', '.join(found)}), against the layers")
                bad += 1
    print(f"layers: {len(files)} files, {bad} includes against the layers")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
