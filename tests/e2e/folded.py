#!/usr/bin/env python3
"""tests/e2e/folded.py - checks `mprof report --format folded` against the
JSON report of the same trace, and against the line rules of the format's
three readers (flamegraph.pl, inferno, speedscope).

Usage: folded.py FOLDED REPORT.json METRIC

Prints one line per check, "ok ..." or "FAIL ...", then "total N" (the sum
of the folded values), and exits 1 when a check failed.  The checks:
  - every line is read the same by the three parsers: flamegraph.pl's
    /^(.*)\\s+?(\\d+(?:\\.\\d*)?)$/ (and no second count column), inferno's
    split at the last space, speedscope's /^(.*) (\\d+)$/; no trailing
    whitespace, no empty frame, no line starting with "# " or a space;
  - no stack twice, no value 0;
  - the sum of the values equals the report's summary figure for METRIC;
  - each stack's value equals the sum of METRIC over the report's sites
    whose frames, named and cleaned as man/mprof-report.1 says, give that
    stack (and no other stack appears).
"""

import json
import os
import re
import sys

# --metric -> (site key, summary path)
METRICS = {
    "peak": ("peak_bytes", ("peak", "bytes")),
    "leaked": ("leaked_bytes", ("leaked_bytes",)),
    "allocated": ("allocated_bytes", ("allocated_bytes",)),
    "allocations": ("allocations", ("allocations",)),
    "temporary": ("temporary", ("temporary",)),
    "peak-blocks": ("peak_blocks", ("peak", "blocks")),
    "leaked-blocks": ("leaked_blocks", ("leaked_blocks",)),
}

FLAMEGRAPH_PL = re.compile(r"^(.*)\s+?(\d+(?:\.\d*)?)$", re.S)
SPEEDSCOPE = re.compile(r"^(.*) (\d+)$", re.S)


def clean(name):
    """A frame name as the folded writer makes it safe (folded.h)."""
    out = []
    for c in name:
        if c == ";":
            c = ":"
        elif ord(c) < 0x20 or ord(c) == 0x7F:
            c = "_"
        elif 0x80 <= ord(c) <= 0x9F:  # a C1 control: two bytes in UTF-8
            c = "__"
        out.append(c)
    if not out:
        return ""
    if out[0] in (" ", "#"):
        out[0] = "_"
    end = len(out)
    while end > 0 and (out[end - 1].isdigit() and out[end - 1].isascii() or out[end - 1] == "."):
        end -= 1
    if end > 0 and out[end - 1] == " ":
        out[end - 1] = "_"
    return "".join(out)


def frame_name(f):
    if f.get("function"):
        return f["function"]
    module = f.get("module")
    if module and module != "?":
        return "[%s+0x%x]" % (os.path.basename(module), f.get("offset", 0))
    return "[unknown]"


def site_stack(site):
    frames = site.get("frames") or []
    if site.get("inherited"):
        return "[inherited at fork]"
    if site.get("unknown_stack") or not frames:
        return "[no stack]"
    return ";".join(clean(frame_name(f)) for f in reversed(frames))


def main(argv):
    folded_path, report_path, metric = argv[1:4]
    site_key, summary_path = METRICS[metric]
    with open(report_path) as f:
        report = json.load(f)
    fails = 0

    def check(what, ok, detail=""):
        nonlocal fails
        print(("ok   " if ok else "FAIL ") + what + ("" if ok else ": " + detail))
        if not ok:
            fails += 1

    with open(folded_path, "rb") as f:
        data = f.read().decode("utf-8", "surrogateescape")
    lines = data.split("\n")
    check("the file ends with a newline (or is empty)", data == "" or lines[-1] == "", repr(data[-20:]))
    lines = lines[:-1] if lines and lines[-1] == "" else lines
    folded = {}
    bad = []
    for line in lines:
        m = SPEEDSCOPE.match(line)
        g = FLAMEGRAPH_PL.match(line)
        stack_inferno, _, count_inferno = line.rpartition(" ")
        ok = (m is not None and g is not None and g.group(1) == m.group(1) and g.group(2) == m.group(2)
              and not FLAMEGRAPH_PL.match(g.group(1))  # no second count column
              and stack_inferno == m.group(1) and count_inferno == m.group(2)
              and line == line.strip() and not line.startswith("# ")
              and "" not in m.group(1).split(";"))
        if not ok:
            bad.append(line)
            continue
        if m.group(1) in folded:
            bad.append("twice: " + line)
        folded[m.group(1)] = int(m.group(2))
    check("every line reads the same in flamegraph.pl, inferno and speedscope", not bad, repr(bad[:3]))
    check("no value is 0", all(v > 0 for v in folded.values()), "")

    expected = {}
    for site in report["sites"]:
        v = site[site_key]
        if v:
            key = site_stack(site)
            expected[key] = expected.get(key, 0) + v
    summary = report["summary"]
    for k in summary_path:
        summary = summary[k]
    total = sum(folded.values())
    check("sum of values = summary %s" % metric, total == summary, "%d != %d" % (total, summary))
    check("sum of the report's sites = summary %s" % metric, sum(expected.values()) == summary,
          "%d != %d" % (sum(expected.values()), summary))
    missing = {k: v for k, v in expected.items() if folded.get(k) != v}
    extra = [k for k in folded if k not in expected]
    check("each stack's value = its sites' (%d stacks)" % len(expected), not missing and not extra,
          "differ: %r; not in the report: %r" % (list(missing.items())[:2], extra[:2]))
    print("stacks %d" % len(folded))
    print("total %d" % total)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
