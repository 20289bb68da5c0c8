#!/usr/bin/env python3
"""chunk_index.py - the INDEX chunk of an mprof trace (mprof-trace(5)), for
the end-to-end tests.

  chunk_index.py show TRACE      the EVENTS chunks and index entries, one a line
  chunk_index.py check TRACE     "index N laps L" (N entries, each matching its
                                 EVENTS chunk's header), or "no index"
  chunk_index.py corrupt TRACE   flips a byte inside the INDEX payload
  chunk_index.py forge TRACE     rewrites the index with one entry's stream
                                 changed, checksums made right
  chunk_index.py drop TRACE      removes the INDEX chunk
  chunk_index.py events TRACE    the number of whole EVENTS chunks (of a trace
                                 still being written, too)
"""
import struct
import sys
import zlib

from trace_craft import read_u as varint, u as put_varint


def chunks(data):
    off = 64
    while off + 24 <= len(data):
        magic, kind, flags, stream, stored, raw, crc, hcrc = struct.unpack_from("<IBBHIIII", data, off)
        yield off, kind, flags, stream, stored, raw
        off += 24 + stored


def payload(data, off, flags, stored):
    body = data[off + 24:off + 24 + stored]
    return zlib.decompress(body) if flags & 1 else body


def decode(p):
    fmt, i = varint(p, 0)
    n, i = varint(p, i)
    entries = []
    for _ in range(n):
        e = {}
        for k in ("stream", "flags", "lap", "lap_offset"):
            e[k], i = varint(p, i)
        if e["flags"] & 1:
            e["seq_first"], i = varint(p, i)
            span, i = varint(p, i)
            e["seq_last"] = e["seq_first"] + span
        if e["flags"] & 2:
            e["time_first"], i = varint(p, i)
            span, i = varint(p, i)
            e["time_last"] = e["time_first"] + span
        entries.append(e)
    assert i == len(p), "trailing bytes"
    return fmt, entries


def encode(fmt, entries):
    out = bytearray(put_varint(fmt) + put_varint(len(entries)))
    for e in entries:
        for k in ("stream", "flags", "lap", "lap_offset"):
            out += put_varint(e[k])
        if e["flags"] & 1:
            out += put_varint(e["seq_first"]) + put_varint(e["seq_last"] - e["seq_first"])
        if e["flags"] & 2:
            out += put_varint(e["time_first"]) + put_varint(e["time_last"] - e["time_first"])
    return bytes(out)


def find_index(data):
    for off, kind, flags, stream, stored, raw in chunks(data):
        if kind == 6:
            return off, flags, stored
    return None


def main():
    cmd, path = sys.argv[1], sys.argv[2]
    data = bytearray(open(path, "rb").read())
    events = [(off, stream) for off, kind, _, stream, _, _ in chunks(data) if kind == 2]
    if cmd == "events":
        print(sum(1 for off, kind, _, _, stored, _ in chunks(data)
                  if kind == 2 and off + 24 + stored <= len(data)))
        return
    found = find_index(data)
    if cmd in ("show", "check"):
        if not found:
            print("no index")
            return
        off, flags, stored = found
        fmt, entries = decode(payload(data, off, flags, stored))
        if cmd == "show":
            for (coff, cstream), e in zip(events, entries):
                print(coff, cstream, e)
            print("events chunks", len(events), "entries", len(entries))
            return
        assert len(entries) == len(events), "entries %d, chunks %d" % (len(entries), len(events))
        for (coff, cstream), e in zip(events, entries):
            assert e["stream"] == cstream, "stream at %d" % coff
        laps = {(e["stream"], e["lap"]) for e in entries}
        print("index", len(entries), "laps", len(laps))
        return
    if not found:
        sys.exit("no index")
    off, flags, stored = found
    if cmd == "corrupt":
        data[off + 24 + stored // 2] ^= 0x55
    elif cmd == "drop":
        data[off:off + 24 + stored] = b""
    elif cmd == "forge":
        fmt, entries = decode(payload(data, off, flags, stored))
        # claim that the last entry's chunk belongs to another stream
        entries[-1]["stream"] = entries[-1]["stream"] % 1000 + 1
        raw = encode(fmt, entries)
        header = struct.pack("<IBBHIII", 0x4B43504D, 6, 0, 0, len(raw), len(raw), zlib.crc32(raw))
        header += struct.pack("<I", zlib.crc32(header))
        data[off:off + 24 + stored] = header + raw
    else:
        sys.exit("unknown command " + cmd)
    open(path, "wb").write(data)


main()
