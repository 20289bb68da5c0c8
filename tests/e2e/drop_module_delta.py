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

from trace_craft import read_u as varint


def records_at(buf, flags):
    """Where the records part of an EVENTS payload starts and ends."""
    i = 0
    for _ in range(3):  # slot, lap, offset
        _, i = varint(buf, i)
    if not flags & 2:
        return i, len(buf)
    r, _s = struct.unpack_from("<II", buf, i)
    i += 8 + (4 if (flags >> 2) & 7 else 0)
    return i, i + r


def drop(buf, start, end, left):
    """Turns the left-th MODULES_DELTA in buf[start:end] into kind 0xfe;
    returns (deltas still to pass, dropped epoch or None)."""
    i = start
    while i < end:
        kind, at = buf[i], i
        i += 1
        if kind >= 0x80:
            n, i = varint(buf, i)
            if kind == 0x88:
                left -= 1
                if left == 0:
                    buf[at] = 0xFE
                    return 0, varint(buf, i)[0]
            i += n
        elif kind in (0x01, 0x02, 0x03):
            _, i = varint(buf, i)
        elif kind in (0x04, 0x05):
            for _ in range(3):
                _, i = varint(buf, i)
        elif kind != 0x00:
            raise SystemExit("drop_module_delta.py: record kind 0x%02x in the meta stream" % kind)
    return left, None


def main():
    data = open(sys.argv[1], "rb").read()
    left, out, off, stream, epoch = int(sys.argv[3]), [data[:64]], 64, None, None
    while off + 24 <= len(data):
        head = data[off:off + 24]
        _magic, kind, flags, strm, stored, _raw, _c, _h = struct.unpack("<IBBHIIII", head)
        body = data[off + 24:off + 24 + stored]
        off += 24 + stored
        payload = zlib.decompress(body) if flags & 1 else body
        if kind == 1:
            for line in payload.decode(errors="replace").splitlines():
                if line.startswith("stack_stream="):
                    stream = int(line.split("=", 1)[1])
        elif kind == 6:
            continue  # the chunk index
        elif kind == 2 and stream is not None and strm == stream and left:
            buf = bytearray(payload)
            left, epoch = drop(buf, *records_at(buf, flags), left)
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
