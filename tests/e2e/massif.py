#!/usr/bin/env python3
"""tests/e2e/massif.py - reads a massif.out file (`mprof report --format
massif`) the way ms_print does, and derives the same answers from the JSON
report, so that the two can be compared exactly.

Usage: massif.py QUERY FILE
  snapshots FILE    "N" snapshots, then per line "time heap tree" for each
  check FILE        "ok", or what is wrong: snapshot numbers not 0..N-1,
                    times decreasing, a node above its snapshot's heap, a
                    child count that does not match, siblings not by bytes,
                    not one peak snapshot
  peak FILE         "INDEX HEAP" of the peak snapshot
  top FILE          the peak tree's top entries, one "BYTES LABEL" a line
                    (by bytes, ties by label, "in N places" last)
  json-top FILE     the same entries from a JSON report: its sites' peak
                    bytes summed by innermost frame, labelled as massif
                    labels frames, those under 1% of the peak merged into
                    "in N places"
"""
import json
import sys


def read_massif(path):
    """Snapshots: dicts with time, heap, tree ("empty"...), nodes [(depth,
    n, bytes, label)]."""
    with open(path) as f:
        lines = [l.rstrip("\n") for l in f]
    head = {}
    i = 0
    while i < len(lines) and not lines[i].startswith("#"):
        key, _, value = lines[i].partition(": ")
        head[key] = value
        i += 1
    snaps = []
    while i < len(lines):
        assert lines[i] == "#-----------", (i + 1, lines[i])
        num = int(lines[i + 1].split("=")[1])
        assert lines[i + 2] == "#-----------"
        fields = {}
        for k, line in zip(("time", "mem_heap_B", "mem_heap_extra_B", "mem_stacks_B",
                            "heap_tree"), lines[i + 3:i + 8]):
            name, _, value = line.partition("=")
            assert name == k, (i + 1, line)
            fields[k] = value
        i += 8
        nodes = []
        while i < len(lines) and not lines[i].startswith("#"):
            line = lines[i]
            depth = len(line) - len(line.lstrip(" "))
            n, rest = line.strip().split(": ", 1)
            b, _, label = rest.partition(" ")
            nodes.append((depth, int(n[1:]), int(b), label))
            i += 1
        snaps.append({"num": num, "time": float(fields["time"]),
                      "heap": int(fields["mem_heap_B"]), "tree": fields["heap_tree"],
                      "nodes": nodes})
    return head, snaps


def check(head, snaps):
    if "cmd" not in head or head.get("time_unit") != "ms":
        return "header: %r" % head
    if [s["num"] for s in snaps] != list(range(len(snaps))):
        return "snapshot numbers are not 0..N-1"
    for a, b in zip(snaps, snaps[1:]):
        if b["time"] < a["time"]:
            return "time decreases at snapshot %d" % b["num"]
    if [s["tree"] for s in snaps].count("peak") != 1:
        return "not one peak snapshot"
    for s in snaps:
        if (s["tree"] == "empty") != (not s["nodes"]):
            return "snapshot %d: tree %s with %d nodes" % (s["num"], s["tree"], len(s["nodes"]))
        nodes = s["nodes"]
        for k, (depth, n, b, _) in enumerate(nodes):
            if b > s["heap"]:
                return "snapshot %d: node above the heap" % s["num"]
            kids = 0
            for d2, _, _, _ in nodes[k + 1:]:
                if d2 <= depth:
                    break
                kids += d2 == depth + 1
            if kids != n:
                return "snapshot %d: node %d says %d children, has %d" % (s["num"], k, n, kids)
        for k, (depth, _, b, label) in enumerate(nodes[1:], 1):
            prev = [p for p in nodes[:k] if p[0] <= depth][-1]
            if prev[0] == depth and not label.startswith("in ") and b > prev[2]:
                return "snapshot %d: node %d has more bytes than its sibling before" % (
                    s["num"], k)
    return "ok"


def top_entries(snap):
    """Ties in bytes in label order (mprof orders them by frame)."""
    entries = [(b, label) for depth, _, b, label in snap["nodes"] if depth == 1]
    places = [e for e in entries if e[1].startswith("in ")]
    entries = sorted((e for e in entries if e not in places), key=lambda e: (-e[0], e[1]))
    return ["%d %s" % e for e in entries + places]


def frame_label(f):
    name = f["function"]
    if not name:
        mod = f["module"].rsplit("/", 1)[-1]
        name = "[%s+0x%x]" % (mod, f["offset"]) if f["module"] != "?" else "[unknown]"
    label = "0x%x: %s" % (f["offset"], name)
    if f["file"] and f["line"]:
        label += " (%s:%d)" % (f["file"], f["line"])
    elif f["module"] != "?":
        label += " (in %s)" % f["module"]
    return label.replace("#", "_")


def json_top(report):
    peak = report["summary"]["peak"]["bytes"]
    groups = {}
    for s in report["sites"]:
        if not s["peak_bytes"]:
            continue
        if s["frames"]:
            key = frame_label(s["frames"][0])
        else:
            key = "[inherited at fork]" if s["inherited"] else "[no stack]"
        groups[key] = groups.get(key, 0) + s["peak_bytes"]
    sig = sorted(((b, k) for k, b in groups.items() if b * 100 >= peak),
                 key=lambda e: (-e[0], e[1]))
    rest = [b for b in groups.values() if b * 100 < peak]
    out = ["%d %s" % e for e in sig]
    if rest:
        out.append("%d in %d place%s, %sbelow massif's threshold (1.00%%)" % (
            sum(rest), len(rest), "" if len(rest) == 1 else "s",
            "" if len(rest) == 1 else "all "))
    return out


def main():
    query, path = sys.argv[1], sys.argv[2]
    if query == "json-top":
        with open(path) as f:
            print("\n".join(json_top(json.load(f))))
        return
    head, snaps = read_massif(path)
    if query == "check":
        print(check(head, snaps))
    elif query == "snapshots":
        print(len(snaps))
        for s in snaps:
            print("%s %d %s" % (s["time"], s["heap"], s["tree"]))
    elif query == "peak":
        s = [s for s in snaps if s["tree"] == "peak"][0]
        print(s["num"], s["heap"])
    elif query == "top":
        print("\n".join(top_entries([s for s in snaps if s["tree"] == "peak"][0])))
    else:
        sys.exit("unknown query " + query)


if __name__ == "__main__":
    main()
