#!/usr/bin/env python3
"""module_records.py TRACE - counts a trace's module map records
(mprof-trace(5): MODULES 0x80, MODULES_DELTA 0x88) in its meta stream (META's
stack_stream) and prints one line: "full F delta D bytes B first B1", B
being the bytes of those records (kind, length and payload), B1 those of
the first one.  For the end-to-end tests;
it reads only the meta stream's EVENTS chunks, whose records it knows.
"""
import sys

from trace_craft import chunks, meta_records, records_span

KINDS = {0x80: "full", 0x88: "delta"}


def count(buf, start, end, found):
    for kind, at, _body, stop in meta_records(buf, start, end):
        if kind in KINDS:
            found[KINDS[kind]] += 1
            found["bytes"] += stop - at
            found["first"] = found["first"] or stop - at


def main():
    data = open(sys.argv[1], "rb").read()
    found = {"full": 0, "delta": 0, "bytes": 0, "first": 0}
    for _head, _body, _kind, flags, _stream, payload, meta in chunks(data):
        if meta:
            count(payload, *records_span(payload, flags), found)
    print("full %d delta %d bytes %d first %d" % (found["full"], found["delta"], found["bytes"],
                                                 found["first"]))


main()
