#!/usr/bin/env python3
"""drop_module_delta.py TRACE OUT K - writes TRACE to OUT with the K-th
MODULES_DELTA record (0x88, counted from 1) of the meta stream turned into a
record of a kind no reader knows (0xfe, same length, skipped by it), as if
the chunk holding it had been lost, and without the chunk index (whose
offsets the new chunk's length would break; mprof-trace(5) reads a trace
without one whole).  Prints the epoch of the dropped map, or "none" when
the trace has fewer deltas.  For tests/e2e/module-map-loss.sh.
"""
import struct
import sys
import zlib

from trace_craft import chunks, meta_records, read_u, records_span


def drop(buf, start, end, left):
    """Turns the left-th MODULES_DELTA in buf[start:end] into kind 0xfe;
    returns (deltas still to pass, dropped epoch or None)."""
    for kind, at, body, _stop in meta_records(buf, start, end):
        if kind == 0x88:
            left -= 1
            if left == 0:
                buf[at] = 0xFE
                return 0, read_u(buf, body)[0]
    return left, None


def main():
    data = open(sys.argv[1], "rb").read()
    left, out, epoch = int(sys.argv[3]), [data[:64]], None
    for head, body, kind, flags, strm, payload, meta in chunks(data):
        if kind == 6:
            continue  # the chunk index
        if meta and left:
            buf = bytearray(payload)
            left, epoch = drop(buf, *records_span(buf, flags), left)
            if epoch is not None:
                z = zlib.compress(bytes(buf)) if flags & 1 else bytes(buf)
                h = struct.pack("<IBBHIII", 0x4B43504D, kind, flags, strm, len(z), len(buf),
                                zlib.crc32(z))
                out.append(h + struct.pack("<I", zlib.crc32(h)) + z)
                continue
        out.append(head + body)
    open(sys.argv[2], "wb").write(b"".join(out))
    print("none" if epoch is None else epoch)


main()
