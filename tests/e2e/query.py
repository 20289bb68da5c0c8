#!/usr/bin/env python3
"""tests/e2e/query.py - answers questions about `mprof report --format json`.

The end-to-end tests call it from shell (through `q` in tests/e2e/lib.sh) and
compare its one-line answers with exact expected values.  It only reads the
report; it never runs mprof.  The report schema is the one written by
analyze/output/json.c ("schema": "mprof-report"); when the report holds
several traces (a JSON array, or schema "mprof-report-set": its "reports")
pick one with --trace INDEX or --pid PID; `get PATH` reads the whole file.

Usage: query.py REPORT.json [--trace N | --pid PID] QUERY ARGS...

"FUNCS" is one or more function names joined by '&': a site matches when its
call stack holds a frame whose function is exactly each of them (C++ names
demangled, without their parameter list: "use_new" matches "use_new()").  Queries:
  check                         the file is an mprof report (exit 0/1)
  get PATH                      any value by dotted path from the top
                                object ("totals.delta.allocations"; works
                                on other JSON too, e.g. mprof diff's)
  len PATH                      the length of the list at PATH
  summary KEY[.SUB...]          a summary field ("calls.malloc" etc.)
  sum FIELD FUNCS               sum of a site field over matching sites
  sum-size FIELD SIZE FUNCS     the same over matching sites whose
                                allocations all have SIZE bytes
  sum-size-all FIELD SIZE       the same over every site whose allocations
                                all have SIZE bytes (for stacks without a
                                name to match, e.g. through a stripped
                                interpreter)
  modules                       the distinct module basenames of all frames
  sum-all FIELD                 sum of a site field over all sites
  sites FUNCS                   number of matching sites
  sites-re REGEX                number of sites with a frame whose function
                                matches REGEX (re.search)
  frame FUNC KEY                the distinct values of KEY of the frame FUNC
                                in matching sites, one per line (file is
                                shown as its basename, module too)
  frame-re REGEX KEY            the same for frames whose function matches
                                REGEX (re.search)
  caller FUNC                   the distinct functions of the frame right
                                after (called from) FUNC, one per line
  unnamed FUNCS [MODULE_RE]     frames without a function name in matching
                                sites (only frames whose module matches)
  max FIELD                     the largest value of a site field
  per-func FIELD REGEX          "name value" for each distinct function
                                name fully matching REGEX (sum over sites)
  sizes FUNCS                   distinct allocated_bytes/allocations ratios
  dump [FUNCS]                  the matching sites, pretty-printed
"""

import json
import os
import re
import sys

# Canonical field name -> names accepted in the report (first found wins).
SITE_ALIASES = {
    "allocations": ["allocations", "allocation_count", "count"],
    "allocated_bytes": ["allocated_bytes", "bytes", "total_bytes"],
    "leaked_bytes": ["leaked_bytes", "live_at_exit_bytes", "leak_bytes"],
    "leaked_blocks": ["leaked_blocks", "live_at_exit_blocks", "leak_blocks"],
    "peak_bytes": ["peak_bytes", "at_peak_bytes"],
    "peak_blocks": ["peak_blocks", "at_peak_blocks"],
    "temporary": ["temporary", "temporary_allocations"],
    "max_live_bytes": ["max_live_bytes"],
    "freed": ["freed", "frees", "freed_blocks"],
}
FRAME_ALIASES = {
    "function": ["function", "func", "name"],
    "file": ["file", "source_file"],
    "line": ["line"],
    "module": ["module", "module_path"],
    "offset": ["offset", "module_offset"],
    "inlined": ["inlined", "inline"],
}


class QueryError(Exception):
    pass


def field(obj, name, aliases):
    for key in aliases.get(name, [name]):
        if key in obj:
            return obj[key]
    if name in obj:
        return obj[name]
    raise QueryError("no field %r in %s" % (name, sorted(obj.keys())))


def site_field(site, name):
    value = field(site, name, SITE_ALIASES)
    return 0 if value is None else value


def frame_field(frame, name):
    try:
        return field(frame, name, FRAME_ALIASES)
    except QueryError:
        return None


def frames_of(site):
    for key in ("frames", "stack", "call_stack"):
        if key in site:
            return site[key]
    raise QueryError("site without frames: %s" % sorted(site.keys()))


def function_of(frame):
    """The frame's function as written in the source: a demangled C++ name
    loses its parameter list ("use_new()" -> "use_new",
    "ns::f(int) const" -> "ns::f")."""
    name = frame_field(frame, "function")
    if isinstance(name, str) and name.endswith((")", ") const")) and "(" in name:
        depth = 0
        for i, ch in enumerate(name):
            if ch == "<":
                depth += 1
            elif ch == ">":
                depth -= 1
            elif ch == "(" and depth == 0 and i > 0 and not name.startswith("(anonymous"):
                return name[:i]
    return name


def site_matches(site, funcs):
    names = {function_of(f) for f in frames_of(site)}
    return all(fn in names for fn in funcs)


def load(path, trace_index, pid):
    with open(path, "r", encoding="utf-8") as f:
        data = json.load(f)
    if isinstance(data, dict) and data.get("schema") == "mprof-report-set":
        data = data["reports"]
    if isinstance(data, list):
        if pid is not None:
            chosen = [t for t in data if str(trace_pid(t)) == str(pid)]
            if len(chosen) != 1:
                raise QueryError("%d traces with pid %s" % (len(chosen), pid))
            return chosen[0]
        if trace_index is None:
            if len(data) != 1:
                raise QueryError("report holds %d traces: use --trace or --pid" % len(data))
            trace_index = 0
        return data[trace_index]
    return data


def trace_pid(report):
    trace = report.get("trace", {})
    if isinstance(trace, dict):
        return trace.get("pid")
    return None


def sites_of(report):
    sites = report.get("sites")
    if not isinstance(sites, list):
        raise QueryError("report has no 'sites' list")
    return sites


def summary_value(report, path):
    obj = report.get("summary")
    if obj is None:
        raise QueryError("report has no 'summary'")
    for part in path.split("."):
        if isinstance(obj, dict) and part in obj:
            obj = obj[part]
        else:
            raise QueryError("no summary field %r (have %s)" % (
                path, sorted(obj.keys()) if isinstance(obj, dict) else obj))
    return obj


def show(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, (dict, list)):
        return json.dumps(value, sort_keys=True)
    return str(value)


def frame_value(frame, key):
    value = frame_field(frame, key)
    if key in ("file", "module") and isinstance(value, str):
        return os.path.basename(value)
    return value


def path_value(obj, path):
    for part in path.split("."):
        if isinstance(obj, dict) and part in obj:
            obj = obj[part]
        elif isinstance(obj, list) and part.isdigit() and int(part) < len(obj):
            obj = obj[int(part)]
        else:
            raise QueryError("no field %r in the JSON (at %r)" % (path, part))
    return obj


def run(report, query, args):
    if query == "get":
        return [show(path_value(report, args[0]))]
    if query == "len":
        return [str(len(path_value(report, args[0])))]
    sites = sites_of(report)
    if query == "check":
        if report.get("schema") not in (None, "mprof-report"):
            raise QueryError("schema is %r" % report.get("schema"))
        if not isinstance(report.get("summary"), dict):
            raise QueryError("report has no 'summary' object")
        for s in sites:
            frames_of(s)
        return ["ok"]
    if query == "summary":
        return [show(summary_value(report, args[0]))]
    if query == "sum":
        funcs = args[1].split("&")
        return [show(sum(site_field(s, args[0]) for s in sites if site_matches(s, funcs)))]
    if query == "sum-size":
        size, funcs = int(args[1]), args[2].split("&")
        return [show(sum(site_field(s, args[0]) for s in sites
                         if site_matches(s, funcs)
                         and site_field(s, "allocated_bytes") == size * site_field(s, "allocations")))]
    if query == "sum-size-all":
        size = int(args[1])
        return [show(sum(site_field(s, args[0]) for s in sites
                         if site_field(s, "allocations")
                         and site_field(s, "allocated_bytes") == size * site_field(s, "allocations")))]
    if query == "modules":
        return sorted({show(frame_value(f, "module")) for s in sites for f in frames_of(s)})
    if query == "sum-all":
        return [show(sum(site_field(s, args[0]) for s in sites))]
    if query == "sites":
        funcs = args[0].split("&")
        return [str(sum(1 for s in sites if site_matches(s, funcs)))]
    if query == "sites-re":
        rx = re.compile(args[0])
        return [str(sum(1 for s in sites
                        if any(rx.search(function_of(f) or "") for f in frames_of(s))))]
    if query == "frame":
        func, key = args[0], args[1]
        values = set()
        for s in sites:
            for f in frames_of(s):
                if function_of(f) == func:
                    values.add(show(frame_value(f, key)))
                    break
        return sorted(values)
    if query == "frame-re":
        rx, key = re.compile(args[0]), args[1]
        values = set()
        for s in sites:
            for f in frames_of(s):
                if rx.search(function_of(f) or ""):
                    values.add(show(frame_value(f, key)))
        return sorted(values)
    if query == "caller":
        values = set()
        for s in sites:
            frames = frames_of(s)
            for i, f in enumerate(frames):
                if function_of(f) == args[0]:
                    values.add(show(function_of(frames[i + 1])) if i + 1 < len(frames) else "(none)")
                    break
        return sorted(values)
    if query == "unnamed":
        funcs = args[0].split("&")
        module_rx = re.compile(args[1]) if len(args) > 1 else None
        count = 0
        for s in sites:
            if not site_matches(s, funcs):
                continue
            for f in frames_of(s):
                name = function_of(f)
                module = frame_field(f, "module") or ""
                if module_rx and not module_rx.search(module):
                    continue
                if not name or name in ("??", "?"):
                    count += 1
        return [str(count)]
    if query == "max":
        return [show(max([site_field(s, args[0]) for s in sites] or [0]))]
    if query == "per-func":
        rx = re.compile(args[1])
        totals = {}
        for s in sites:
            names = {function_of(f) for f in frames_of(s)}
            for name in names:
                if name and rx.fullmatch(name):
                    totals[name] = totals.get(name, 0) + site_field(s, args[0])
        return ["%s %s" % (name, show(totals[name])) for name in sorted(totals)]
    if query == "sizes":
        funcs = args[0].split("&")
        values = set()
        for s in sites:
            if site_matches(s, funcs):
                n = site_field(s, "allocations")
                b = site_field(s, "allocated_bytes")
                values.add(show(b / n) if n else "0")
        return sorted(values)
    if query == "dump":
        funcs = args[0].split("&") if args else []
        chosen = [s for s in sites if site_matches(s, funcs)] if funcs else sites
        return [json.dumps(chosen, indent=1, sort_keys=True)]
    raise QueryError("unknown query %r" % query)


def main(argv):
    if len(argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    path = argv[1]
    rest = argv[2:]
    trace_index = None
    pid = None
    while rest and rest[0] in ("--trace", "--pid"):
        if rest[0] == "--trace":
            trace_index = int(rest[1])
        else:
            pid = rest[1]
        rest = rest[2:]
    try:
        if rest[0] == "check" and trace_index is None and pid is None:
            with open(path, "r", encoding="utf-8") as f:
                whole = json.load(f)
            if isinstance(whole, dict) and whole.get("schema") == "mprof-report-set":
                for i in range(len(whole["reports"])):
                    run(load(path, i, None), "check", [])
                print("ok")
                return 0
        if rest[0] in ("get", "len") and trace_index is None and pid is None:
            with open(path, "r", encoding="utf-8") as f:
                report = json.load(f)  # the whole file, e.g. a report set
        else:
            report = load(path, trace_index, pid)
        for line in run(report, rest[0], rest[1:]):
            print(line)
    except (QueryError, OSError, ValueError, IndexError, KeyError, TypeError) as e:
        print("query error: %s" % e)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
