#!/usr/bin/env python3
"""docs/architecture.md's "Targets" graph against the package itself (issue #42).

Usage: swift package dump-package | check-architecture.py docs/architecture.md

Every first-party target that is not a test and not a C module (`C*`) must be drawn with exactly the
dependencies Package.swift gives it (another package's products marked `*`), and nothing else drawn.
"""
import json
import re
import sys


def drawn(path):
    text = open(path, encoding="utf-8").read()
    block = text.split("What `swift package dump-package` gives", 1)[1].split("```", 2)[1]
    graph, current = {}, None
    for line in block.splitlines():
        if not line.strip():
            continue
        if "(nothing)" in line:
            for name in line.split("(nothing)")[0].split(","):
                graph[name.strip()] = set()
            current = None
        elif "◀" in line:
            name, deps = line.split("◀", 1)
            current = name.strip()
            graph[current] = {d.strip() for d in deps.split(",") if d.strip()}
        elif current:
            graph[current] |= {d.strip() for d in line.split(",") if d.strip()}
    return graph


def declared(package):
    graph = {}
    for target in package["targets"]:
        name = target["name"]
        if target["type"] == "test" or re.match(r"C[A-Z]", name) or target["type"] in ("system", "plugin"):
            continue
        deps = set()
        for dependency in target.get("dependencies", []):
            kind, value = next(iter(dependency.items()))
            if kind in ("byName", "target"):
                deps.add(value[0])
            elif kind == "product":
                deps.add(value[0] + "*")
        graph[name] = deps
    return graph


def main():
    doc = drawn(sys.argv[1])
    package = declared(json.load(sys.stdin))
    problems = []
    for name in sorted(set(doc) | set(package)):
        if name not in package:
            problems.append(f"{name}: drawn, but Package.swift has no such target")
        elif name not in doc:
            problems.append(f"{name}: not drawn ({', '.join(sorted(package[name])) or 'nothing'})")
        elif doc[name] != package[name]:
            missing = ", ".join(sorted(package[name] - doc[name]))
            extra = ", ".join(sorted(doc[name] - package[name]))
            problems.append(f"{name}: not drawn: [{missing}]; drawn but not declared: [{extra}]")
    for problem in problems:
        print(f"FAIL  docs/architecture.md Targets: {problem}", file=sys.stderr)
    if not problems:
        print(f"ok    docs/architecture.md draws the {len(package)} targets as Package.swift declares them")
    sys.exit(1 if problems else 0)


main()
