#!/usr/bin/env python3
"""trace_to_seed.py MODE TRACE OUT [--no-symbols] - writes an mprof trace as
an input of tests/fuzz/fuzz-trace in its chunk form (tests/fuzz/fuzz_trace.c):
the mode byte MODE (0 report, 1 report --format json, 3 symbolize then
report; the trace's major goes in bits 2-3, or in a chunk of type 0xfd
above major 4, and its "sampled" flag in bit 4), then each chunk as u8 type,
u8 flags, u16 stream, u24 payload bytes and the payload inflated (flag bit 0
kept: the target deflates it again), so that mutations reach the records.
--no-symbols leaves out the SYMBOLS chunk, for the symbolize step to read
the module maps.  Chunks whose payload exceeds 2^24 - 1 bytes are refused.
"""
import struct
import sys
import zlib


def main():
    mode, path, out = int(sys.argv[1], 0), sys.argv[2], sys.argv[3]
    no_symbols = "--no-symbols" in sys.argv[4:]
    data = open(path, "rb").read()
    major, _minor, _size, flags = struct.unpack_from("<HHII", data, 8)
    seed = bytearray([mode | ((major - 1) & 3) << 2 | (flags & 1) << 4])
    if major > 4:
        seed += struct.pack("<BBH", 0xfd, major, 0) + bytes(3)
    off = struct.unpack_from("<I", data, 12)[0]
    while off + 24 <= len(data):
        _m, kind, flags, stream, stored, _raw, _c, _h = struct.unpack_from("<IBBHIIII", data, off)
        body = data[off + 24:off + 24 + stored]
        off += 24 + stored
        if no_symbols and kind == 3:
            continue
        payload = zlib.decompress(body) if flags & 1 else body
        if len(payload) >= 1 << 24:
            raise SystemExit("trace_to_seed.py: a chunk of %d bytes" % len(payload))
        seed += struct.pack("<BBH", kind, flags, stream) + len(payload).to_bytes(3, "little")
        seed += payload
    open(out, "wb").write(seed)


main()
