#!/usr/bin/env python3
"""tests/e2e/pprof.py - reads `mprof report --format pprof` back, for the tests.

A decoder of our own (gzip, then protobuf's wire format by hand: varints and
length-delimited fields) for github.com/google/pprof's proto/profile.proto,
so that the round trip does not rest on the writer's encoder.  It checks
what pprof's own reader checks (string_table[0] is "", ids nonzero, unique
and resolvable, every sample has one value per sample type, string indices
in range) and compares the samples with `mprof report --format json` of the
same trace.

Usage: pprof.py PROFILE.pb.gz COMMAND ARGS...
  check                 the profile is well formed (prints "ok")
  compare REPORT.json   every site of the JSON report is one sample with
                        the same stack (function, file, line, inlined) and
                        the same values, and no sample is left over; the
                        totals equal the report's (prints "ok N samples",
                        else the differences)
  types                 "type/unit" of each sample type, space-separated
  get FIELD             period_type ("type/unit"), period, default,
                        time_nanos, duration_nanos, comments (one a line)
  total TYPE            the sum of the samples' values of TYPE
  mappings              "filename build_id start limit has_functions" a
                        line (start and limit in hex)
  addresses             "ok" when every location with a mapping has an
                        address inside [start, limit) of that mapping
  stacks                each sample as "value_of_default|frame;frame..."
                        (leaf first, inlined frames marked "+inline")
"""

import gzip
import json
import sys

# profile.proto's field numbers and what each field is
PROFILE = {1: ("sample_type", "msg"), 2: ("sample", "msg"), 3: ("mapping", "msg"),
           4: ("location", "msg"), 5: ("function", "msg"), 6: ("string_table", "str"),
           7: ("drop_frames", "int"), 8: ("keep_frames", "int"), 9: ("time_nanos", "int"),
           10: ("duration_nanos", "int"), 11: ("period_type", "msg"), 12: ("period", "int"),
           13: ("comment", "ints"), 14: ("default_sample_type", "int")}
VALUE_TYPE = {1: ("type", "int"), 2: ("unit", "int")}
SAMPLE = {1: ("location_id", "ints"), 2: ("value", "ints"), 3: ("label", "msg")}
MAPPING = {1: ("id", "int"), 2: ("memory_start", "int"), 3: ("memory_limit", "int"),
           4: ("file_offset", "int"), 5: ("filename", "int"), 6: ("build_id", "int"),
           7: ("has_functions", "int"), 8: ("has_filenames", "int"),
           9: ("has_line_numbers", "int"), 10: ("has_inline_frames", "int")}
LOCATION = {1: ("id", "int"), 2: ("mapping_id", "int"), 3: ("address", "int"),
            4: ("line", "msg"), 5: ("is_folded", "int")}
LINE = {1: ("function_id", "int"), 2: ("line_number", "int")}
FUNCTION = {1: ("id", "int"), 2: ("name", "int"), 3: ("system_name", "int"),
            4: ("filename", "int"), 5: ("start_line", "int")}
REPEATED = {"sample_type", "sample", "mapping", "location", "function", "string_table",
            "comment", "location_id", "value", "label", "line"}
SUBMESSAGES = {"sample_type": VALUE_TYPE, "period_type": VALUE_TYPE, "sample": SAMPLE,
               "mapping": MAPPING, "location": LOCATION, "line": LINE,
               "function": FUNCTION, "label": {}}

# The JSON report's name of the metric behind each sample type.
TYPE_FIELDS = {"alloc_objects": "allocations", "alloc_space": "allocated_bytes",
               "inuse_objects": "leaked_blocks", "inuse_space": "leaked_bytes",
               "peak_objects": "peak_blocks", "peak_space": "peak_bytes",
               "temporary": "temporary"}
SUMMARY_FIELDS = {"allocations": ("allocations",), "allocated_bytes": ("allocated_bytes",),
                  "leaked_blocks": ("leaked_blocks",), "leaked_bytes": ("leaked_bytes",),
                  "peak_blocks": ("peak", "blocks"), "peak_bytes": ("peak", "bytes"),
                  "temporary": ("temporary",)}


class Malformed(Exception):
    pass


def varint(data, pos):
    value = shift = 0
    while True:
        if pos >= len(data) or shift > 63:
            raise Malformed("varint runs past the end")
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, pos


def int64(value):
    return value - (1 << 64) if value >= 1 << 63 else value


def decode(data, schema):
    """One message: a dict of field name -> value (lists for repeated ones)."""
    msg = {name: [] for name, _ in schema.values() if name in REPEATED}
    pos = 0
    while pos < len(data):
        key, pos = varint(data, pos)
        field, wire = key >> 3, key & 7
        name, kind = schema.get(field, (None, None))
        if wire == 0:
            value, pos = varint(data, pos)
            if kind == "ints":
                msg[name].append(int64(value))
            elif name:
                msg[name] = int64(value)
        elif wire == 2:
            length, pos = varint(data, pos)
            if pos + length > len(data):
                raise Malformed("field %d runs past the end" % field)
            body, pos = data[pos:pos + length], pos + length
            if kind == "ints":  # packed
                p = 0
                while p < len(body):
                    value, p = varint(body, p)
                    msg[name].append(int64(value))
            elif kind == "str":
                msg[name].append(body.decode("utf-8", "replace"))
            elif kind == "msg":
                sub = decode(body, SUBMESSAGES[name])
                if name in REPEATED:
                    msg[name].append(sub)
                else:
                    msg[name] = sub
            elif name:
                raise Malformed("field %s is not length-delimited" % name)
        elif wire == 1:
            pos += 8
        elif wire == 5:
            pos += 4
        else:
            raise Malformed("wire type %d" % wire)
    return msg


class Profile:
    def __init__(self, path):
        with open(path, "rb") as f:
            raw = f.read()
        if raw[:2] != b"\x1f\x8b":
            raise Malformed("not gzip")
        self.p = decode(gzip.decompress(raw), PROFILE)
        p = self.p
        self.strings = p["string_table"]
        if not self.strings or self.strings[0] != "":
            raise Malformed("string_table[0] must be ''")
        self.types = [(self.s(t.get("type", 0)), self.s(t.get("unit", 0)))
                      for t in p["sample_type"]]
        self.mappings = self.by_id(p["mapping"], "mapping")
        self.functions = self.by_id(p["function"], "function")
        self.locations = self.by_id(p["location"], "location")
        for m in p["mapping"]:
            self.s(m.get("filename", 0))
            self.s(m.get("build_id", 0))
        for f in p["function"]:
            for k in ("name", "system_name", "filename"):
                self.s(f.get(k, 0))
        for loc in p["location"]:
            if loc.get("mapping_id", 0) and loc["mapping_id"] not in self.mappings:
                raise Malformed("location %d: no mapping %d" % (loc["id"], loc["mapping_id"]))
            for line in loc["line"]:
                if line.get("function_id", 0) not in self.functions:
                    raise Malformed("location %d: no function %d"
                                    % (loc["id"], line.get("function_id", 0)))
        for i, smp in enumerate(p["sample"]):
            if len(smp["value"]) != len(self.types):
                raise Malformed("sample %d has %d values vs. %d types"
                                % (i, len(smp["value"]), len(self.types)))
            for lid in smp["location_id"]:
                if lid not in self.locations:
                    raise Malformed("sample %d: no location %d" % (i, lid))
        for c in p["comment"]:
            self.s(c)
        if "period_type" in p:
            self.s(p["period_type"].get("type", 0))
        self.s(p.get("default_sample_type", 0))

    def s(self, index):
        if not 0 <= index < len(self.strings):
            raise Malformed("string index %d out of range" % index)
        return self.strings[index]

    @staticmethod
    def by_id(items, what):
        table = {}
        for item in items:
            i = item.get("id", 0)
            if i == 0 or i in table:
                raise Malformed("%s id %d is zero or repeated" % (what, i))
            table[i] = item
        return table

    def frames(self, sample):
        """The sample's frames, leaf first: (function, file, line, inlined)."""
        out = []
        for lid in sample["location_id"]:
            lines = self.locations[lid]["line"]
            for k, line in enumerate(lines):
                f = self.functions[line["function_id"]]
                out.append((self.s(f.get("name", 0)), self.s(f.get("filename", 0)),
                            line.get("line_number", 0), k < len(lines) - 1))
        return out

    def type_index(self, name):
        for i, (t, _) in enumerate(self.types):
            if t == name:
                return i
        raise SystemExit("no sample type %s" % name)


def json_frame_name(frame):
    if frame.get("function") is not None:
        return frame["function"]
    module = frame.get("module")
    if module and module != "?":
        return "[%s+0x%x]" % (module.rsplit("/", 1)[-1], frame["offset"])
    return "[unknown]"


def json_stack(site):
    """The site's frames as pprof can hold them: the outermost frame of a
    stack is the last line of its location, never inlined (only a trace's
    own embedded symbols can mark every frame inlined)."""
    if not site["frames"]:
        name = "[inherited at fork]" if site.get("inherited") else "[no stack]"
        return ((name, "", 0, False),)
    last = len(site["frames"]) - 1
    return tuple((json_frame_name(f), f.get("file") or "", f.get("line", 0),
                  f["inlined"] and i < last) for i, f in enumerate(site["frames"]))


def compare(prof, report_path):
    with open(report_path) as f:
        report = json.load(f)
    if report.get("sites_shown") != report.get("sites_total"):
        raise SystemExit("the JSON report must list every site (no -n)")
    fields = [TYPE_FIELDS[t] for t, _ in prof.types]
    want = {}
    for site in report["sites"]:
        key = (json_stack(site), tuple(site[k] for k in fields))
        want[key] = want.get(key, 0) + 1
    have = {}
    for smp in prof.p["sample"]:
        key = (tuple(prof.frames(smp)), tuple(smp["value"]))
        have[key] = have.get(key, 0) + 1
    problems = []
    for key in want:
        if have.get(key, 0) != want[key]:
            problems.append("site not in the profile: %s = %s" % (key[0][:3], key[1]))
    for key in have:
        if want.get(key, 0) != have[key]:
            problems.append("sample not in the report: %s = %s" % (key[0][:3], key[1]))
    summary = report["summary"]
    for i, field in enumerate(fields):
        total = sum(smp["value"][i] for smp in prof.p["sample"])
        expected = summary
        for k in SUMMARY_FIELDS[field]:
            expected = expected[k]
        if total != expected:
            problems.append("total of %s: %d, the report's %s: %d"
                            % (prof.types[i][0], total, field, expected))
    if problems:
        print("\n".join(problems[:20]))
        return 1
    print("ok %d samples" % len(prof.p["sample"]))
    return 0


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        prof = Profile(argv[1])
    except (Malformed, OSError, EOFError) as e:
        print("malformed: %s" % e)
        return 1
    cmd, args = argv[2], argv[3:]
    p = prof.p
    if cmd == "check":
        print("ok")
    elif cmd == "compare":
        return compare(prof, args[0])
    elif cmd == "types":
        print(" ".join("%s/%s" % t for t in prof.types))
    elif cmd == "get":
        field = args[0]
        if field == "period_type":
            pt = p.get("period_type", {})
            print("%s/%s" % (prof.s(pt.get("type", 0)), prof.s(pt.get("unit", 0))))
        elif field == "default":
            print(prof.s(p.get("default_sample_type", 0)))
        elif field == "comments":
            print("\n".join(prof.s(c) for c in p["comment"]))
        else:
            print(p.get(field, 0))
    elif cmd == "total":
        i = prof.type_index(args[0])
        print(sum(smp["value"][i] for smp in p["sample"]))
    elif cmd == "mappings":
        for m in p["mapping"]:
            print("%s %s %x %x %d" % (prof.s(m.get("filename", 0)), prof.s(m.get("build_id", 0)),
                                      m.get("memory_start", 0), m.get("memory_limit", 0),
                                      m.get("has_functions", 0)))
    elif cmd == "addresses":
        bad = [loc["id"] for loc in p["location"] if loc.get("mapping_id", 0) and not (
            prof.mappings[loc["mapping_id"]].get("memory_start", 0) <= loc.get("address", 0)
            < prof.mappings[loc["mapping_id"]].get("memory_limit", 0))]
        print("ok" if not bad else "outside their mapping: %s" % bad[:10])
    elif cmd == "stacks":
        i = prof.type_index(prof.s(p.get("default_sample_type", 0)))
        for smp in p["sample"]:
            print("%d|%s" % (smp["value"][i], ";".join(
                f[0] + ("+inline" if f[3] else "") for f in prof.frames(smp))))
    else:
        print("unknown command %s" % cmd, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
