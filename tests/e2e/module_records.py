#!/usr/bin/env python3
"""module_records.py TRACE - counts a trace's module map records
(mprof-trace(5): MODULES 0x80, MODULES_DELTA 0x88) in its meta stream (META's
stack_stream) and prints one line: "full F delta D bytes B first B1", B
being the bytes of those records (kind, length and payload), B1 those of
the first one.  For the end-to-end tests;
it reads only the meta stream's EVENTS chunks, whose records it knows.
"""
import struct
import sys
import zlib

from trace_craft import read_u as varint

KINDS = {0x80: "full", 0x88: "delta"}


def records(buf, flags):
    """The records part of an EVENTS payload (joined or split form)."""
    i = 0
    for _ in range(3):  # slot, lap, offset
        _, i = varint(buf, i)
    if not flags & 2:
        return buf[i:]
    r, _s = struct.unpack_from("<II", buf, i)
    i += 8 + (4 if (flags >> 2) & 7 else 0)
    return buf[i:i + r]


def count(buf, found):
    i = 0
    while i < len(buf):
        kind, start = buf[i], i
        i += 1
        if kind >= 0x80:
            n, i = varint(buf, i)
            i += n
            if kind in KINDS:
                found[KINDS[kind]] += 1
                found["bytes"] += i - start
                found["first"] = found["first"] or i - start
        elif kind == 0x00:
            pass
        elif kind in (0x01, 0x02, 0x03):
            _, i = varint(buf, i)
        elif kind in (0x04, 0x05):
            for _ in range(3):
                _, i = varint(buf, i)
        else:
            raise SystemExit("module_records.py: record kind 0x%02x in the meta stream" % kind)


def main():
    data = open(sys.argv[1], "rb").read()
    stream, off, found = None, 64, {"full": 0, "delta": 0, "bytes": 0, "first": 0}
    while off + 24 <= len(data):
        _magic, kind, flags, strm, stored, _raw, _c, _h = struct.unpack_from("<IBBHIIII", data, off)
        body = data[off + 24:off + 24 + stored]
        off += 24 + stored
        payload = zlib.decompress(body) if flags & 1 else body
        if kind == 1:
            for line in payload.decode(errors="replace").splitlines():
                if line.startswith("stack_stream="):
                    stream = int(line.split("=", 1)[1])
        elif kind == 2 and stream is not None and strm == stream:
            count(records(payload, flags), found)
    print("full %d delta %d bytes %d first %d" % (found["full"], found["delta"], found["bytes"],
                                                 found["first"]))


main()
