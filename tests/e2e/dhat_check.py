#!/usr/bin/env python3
"""tests/e2e/dhat_check.py - round trips of `mprof report --format dhat`,
`dhat-json` and `speedscope`: parses the format back and compares every
figure with `--format json` of the same trace, exactly.

Usage:
  dhat_check.py dhat TEXT JSON [SORT_KEY [N]]   the text report (sorted by
                                                SORT_KEY, first N shown)
  dhat_check.py dhat-json FILE JSON             DHAT v2 JSON
  dhat_check.py speedscope FILE JSON [SCHEMA]   speedscope JSON (and, given
                                                SCHEMA, validated against it)

Prints one line per mismatch ("FAIL ..."), then "checked N sites" (and for
speedscope "display I TEXT": the total speedscope shows for profile I) and
exits 1 when something differed, 2 on a usage error.
"""
import decimal
import json
import os
import re
import sys

FAILS = []


def fail(msg):
    FAILS.append(msg)
    print("FAIL " + msg)


def eq(what, want, got):
    if want != got:
        fail("%s: want %r, got %r" % (what, want, got))


def base(path):
    return path.rsplit("/", 1)[-1]


def frame_name(f):
    """output_frame_name: function, else [MODULE+0xOFF], else [unknown]."""
    if f["function"] is not None:
        return f["function"]
    if f["module"] and f["module"] != "?":
        return "[%s+0x%x]" % (base(f["module"]), f["offset"])
    return "[unknown]"


def dhat_frame(f):
    """A frame as dhat-json's ftbl writes it (dhat_json.c)."""
    tail = " [inlined]" if f["inlined"] else ""
    fn, file = f["function"], f["file"]
    if fn is not None and file is not None and f["line"]:
        return "%s (%s:%d)%s" % (fn, base(file), f["line"], tail)
    if fn is not None and file is not None:
        return "%s (%s)%s" % (fn, base(file), tail)
    if fn is not None and f["module"] and f["module"] != "?":
        return "%s (in %s)%s" % (fn, base(f["module"]), tail)
    return frame_name(f) + tail


def stackless(site):
    if site["inherited"]:
        return "[inherited at fork]"
    if site["unknown_stack"]:
        return "[no stack]"
    return None


SORT_KEYS = {
    "total-bytes": lambda s: s["allocated_bytes"],
    "total-blocks": lambda s: s["allocations"],
    "max-bytes": lambda s: s["max_live_bytes"],
    "max-blocks": lambda s: s["max_live_blocks"],
    "t-gmax-bytes": lambda s: s["peak_bytes"],
    "t-gmax-blocks": lambda s: s["peak_blocks"],
    "t-end-bytes": lambda s: s["leaked_bytes"],
    "t-end-blocks": lambda s: s["leaked_blocks"],
    "max-lifetime": lambda s: s["lifetime_events_max"] or 0,
    "short-lived": lambda s: s["temporary"],
}


def sorted_sites(sites, key):
    if key == "avg-lifetime":
        # exact fractions; sites with no block freed last
        from fractions import Fraction

        def k(s):
            if not s["freed"]:
                return (1, 0, s["id"])
            return (0, -Fraction(round(s["lifetime_events_avg"] * s["freed"]), s["freed"]), s["id"])
        return sorted(sites, key=k)
    return sorted(sites, key=lambda s: (-SORT_KEYS[key](s), s["id"]))


def check_dhat(text_path, report, key, n):
    text = open(text_path, encoding="utf-8", errors="replace").read()
    summ = report["summary"]
    m = re.search(r"\n  Total:       (\d+) bytes in (\d+) blocks", text)
    eq("header total", (summ["allocated_bytes"], summ["allocations"]),
       m and (int(m[1]), int(m[2])))
    m = re.search(r"\n  At t-gmax:   (\d+) bytes in (\d+) blocks\n", text)
    eq("header t-gmax", (summ["peak"]["bytes"], summ["peak"]["blocks"]),
       m and (int(m[1]), int(m[2])))
    m = re.search(r"\n  At t-end:    (\d+) bytes in (\d+) blocks\n", text)
    eq("header t-end", (summ["leaked_bytes"], summ["leaked_blocks"]),
       m and (int(m[1]), int(m[2])))
    m = re.search(r"\n  Short-lived: (\d+) blocks", text)
    eq("header short-lived", summ["temporary"], m and int(m[1]))
    eq("header sort", key, (re.search(r"\nSorted by (\S+);", text) or [None, None])[1])
    by_id = {s["id"]: s for s in report["sites"]}
    blocks = re.findall(r"\nPP (\d+)/(\d+) \(site (\d+)\) \{\n(.*?)\n\}\n", text, re.S)
    want_order = [s["id"] for s in sorted_sites(report["sites"], key)]
    if n is not None:
        want_order = want_order[:n]
    eq("site order", want_order, [int(b[2]) for b in blocks])
    for rank, total, sid, body in blocks:
        s = by_id[int(sid)]
        what = "PP %s (site %s)" % (rank, sid)
        eq(what + " count", len(report["sites"]), int(total))
        m = re.search(r"  Total:       (\d+) bytes \([\d.]+%\) in (\d+) blocks", body)
        eq(what + " total", (s["allocated_bytes"], s["allocations"]), m and (int(m[1]), int(m[2])))
        m = re.search(r"  Lifetime:    (?:avg ([\d.]+) events \([^)]*\), max (\d+) events "
                      r"\([^)]*\), over (\d+) blocks freed|no block freed)\n", body)
        if not m:
            fail(what + " lifetime line missing")
        elif s["freed"]:
            eq(what + " lifetime", ("%.1f" % s["lifetime_events_avg"], s["lifetime_events_max"],
                                    s["freed"]), (m[1], m[2] and int(m[2]), m[3] and int(m[3])))
        else:
            eq(what + " lifetime (none freed)", None, m[1])
        m = re.search(r"  Max:         (at most )?(\d+) bytes in (\d+) blocks", body)
        eq(what + " max", (s["stacks"] > 1, s["max_live_bytes"], s["max_live_blocks"]),
           m and (bool(m[1]), int(m[2]), int(m[3])))
        m = re.search(r"  At t-gmax:   (\d+) bytes \([\d.]+%\) in (\d+) blocks", body)
        eq(what + " t-gmax", (s["peak_bytes"], s["peak_blocks"]), m and (int(m[1]), int(m[2])))
        m = re.search(r"  At t-end:    (\d+) bytes \([\d.]+%\) in (\d+) blocks", body)
        eq(what + " t-end", (s["leaked_bytes"], s["leaked_blocks"]), m and (int(m[1]), int(m[2])))
        m = re.search(r"  Short-lived: (\d+) blocks", body)
        eq(what + " short-lived", s["temporary"], m and int(m[1]))
        at = re.findall(r"\n    at (.*)", body)
        eq(what + " frames", len(s["frames"]), len(at))
        for i, (f, line) in enumerate(zip(s["frames"], at)):
            if f["function"] and len(f["function"]) <= 120 and not line.startswith(f["function"] + " "):
                fail("%s frame %d: want %r, got %r" % (what, i, f["function"], line))
    return len(blocks)


def check_dhat_json(path, report):
    d = json.load(open(path, encoding="utf-8"))
    for k in ["dhatFileVersion", "mode", "verb", "bklt", "bkacc", "tu", "Mtu", "cmd", "pid",
              "te", "pps", "ftbl", "tg", "tuth"]:
        if k not in d:
            fail("missing top-level field " + k)
    eq("dhatFileVersion", 2, d.get("dhatFileVersion"))
    eq("bklt, bkacc", (True, False), (d.get("bklt"), d.get("bkacc")))
    eq("tu", "events", d.get("tu"))
    ftbl, pps, sites, summ = d["ftbl"], d["pps"], report["sites"], report["summary"]
    eq("ftbl[0]", "[root]", ftbl[0])
    eq("pid", summ["program"]["pid"] or 0, d["pid"])
    if not 0 <= d["tg"] <= d["te"]:
        fail("tg %r not within 0..te %r" % (d["tg"], d["te"]))
    eq("program points", len(sites), len(pps))
    seen = set()
    for i, (pp, s) in enumerate(zip(pps, sites)):
        what = "pp %d (site %d)" % (i, s["id"])
        got = tuple(pp.get(k) for k in ("tb", "tbk", "mb", "mbk", "gb", "gbk", "eb", "ebk"))
        want = (s["allocated_bytes"], s["allocations"], s["max_live_bytes"], s["max_live_blocks"],
                s["peak_bytes"], s["peak_blocks"], s["leaked_bytes"], s["leaked_blocks"])
        eq(what + " tb tbk mb mbk gb gbk eb ebk", want, got)
        if s["freed"]:
            eq(what + " tl / freed", "%.1f" % s["lifetime_events_avg"], "%.1f" % (pp["tl"] / s["freed"]))
        else:
            eq(what + " tl", 0, pp.get("tl"))
        fs = tuple(pp["fs"])
        if fs in seen:
            fail(what + " repeats another's fs")
        seen.add(fs)
        if any(not 1 <= x < len(ftbl) for x in fs):
            fail(what + " fs index out of ftbl")
            continue
        want = [dhat_frame(f) for f in s["frames"]]
        if stackless(s):
            want = [stackless(s)] + want
        eq(what + " frames", want, [ftbl[x] for x in fs])
    for k, total in (("tb", summ["allocated_bytes"]), ("tbk", summ["allocations"]),
                     ("gb", summ["peak"]["bytes"]), ("gbk", summ["peak"]["blocks"]),
                     ("eb", summ["leaked_bytes"]), ("ebk", summ["leaked_blocks"])):
        eq("sum of " + k, total, sum(pp[k] for pp in pps))
    return len(pps)


PROFILES = [("peak bytes", "bytes", lambda s: s["peak_bytes"], lambda m: m["peak"]["bytes"]),
            ("leaked bytes", "bytes", lambda s: s["leaked_bytes"], lambda m: m["leaked_bytes"]),
            ("allocated bytes", "bytes", lambda s: s["allocated_bytes"],
             lambda m: m["allocated_bytes"]),
            ("allocations", "none", lambda s: s["allocations"], lambda m: m["allocations"]),
            ("temporary", "none", lambda s: s["temporary"], lambda m: m["temporary"])]


def speedscope_display(v, unit):
    """The total as speedscope 1.25.0 shows it (its byte and count formats;
    toFixed rounds half up)."""
    if unit == "none":
        return "{:,}".format(v)
    d = decimal.Decimal(v)
    if v < 1024:
        return "%s B" % d.quantize(decimal.Decimal(1), decimal.ROUND_HALF_UP)
    for u in ("KB", "MB", "GB"):
        d /= 1024
        if d < 1024 or u == "GB":
            return "%s %s" % (d.quantize(decimal.Decimal("0.01"), decimal.ROUND_HALF_UP), u)


def check_speedscope(path, report, schema):
    d = json.load(open(path, encoding="utf-8"))
    if schema:
        import jsonschema
        try:
            jsonschema.validate(d, json.load(open(schema)))
        except jsonschema.ValidationError as e:
            fail("schema: %s" % str(e).splitlines()[0])
    eq("$schema", "https://www.speedscope.app/file-format-schema.json", d.get("$schema"))
    frames, sites, summ = d["shared"]["frames"], report["sites"], report["summary"]
    eq("profiles", [p[0] for p in PROFILES], [p["name"] for p in d["profiles"]][:len(PROFILES)])
    for i, ((name, unit, site_value, total), p) in enumerate(zip(PROFILES, d["profiles"])):
        eq(name + " type, unit", ("sampled", unit), (p["type"], p["unit"]))
        eq(name + " samples = weights", len(p["samples"]), len(p["weights"]))
        eq(name + " weights sum", total(summ), sum(p["weights"]))
        eq(name + " endValue - startValue", total(summ), p["endValue"] - p["startValue"])
        valued = [s for s in sites if site_value(s)]
        eq(name + " weights", [site_value(s) for s in valued], p["weights"])
        for s, sample in zip(valued, p["samples"]):
            want = [{"name": frame_name(f), **({"file": f["file"]} if f["file"] else {}),
                     **({"line": f["line"]} if f["line"] else {})} for f in reversed(s["frames"])]
            if stackless(s):
                want = [{"name": stackless(s)}] + want
            eq("%s site %d frames" % (name, s["id"]), want, [frames[x] for x in sample])
        print("display %d %s" % (i + 1, speedscope_display(total(summ), unit)))
    return len(sites)


def main(argv):
    if len(argv) < 4 or argv[1] not in ("dhat", "dhat-json", "speedscope"):
        print(__doc__, file=sys.stderr)
        return 2
    report = json.load(open(argv[3], encoding="utf-8"))
    if argv[1] == "dhat":
        n = check_dhat(argv[2], report, argv[4] if len(argv) > 4 else "total-bytes",
                       int(argv[5]) if len(argv) > 5 else None)
    elif argv[1] == "dhat-json":
        n = check_dhat_json(argv[2], report)
    else:
        n = check_speedscope(argv[2], report, argv[4] if len(argv) > 4 else None)
    print("checked %d sites" % n)
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
