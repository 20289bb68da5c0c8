#!/usr/bin/env python3
"""seed_to_trace.py SEED OUT - writes the first trace that tests/fuzz/fuzz-trace
makes of an input in its chunk form (tests/fuzz/fuzz_trace.c describes it) to
OUT, and the second (after a chunk of type 0xff) to OUT.2 when there is one,
so that a seed can be checked with `mprof report` (tests/e2e/fuzz-seeds.sh).
Raw inputs (mode bit 6) are written as they are.
"""
import struct
import sys
import zlib

CHUNK_MAGIC = 0x4B43504D
HEADER_BYTES = 64


def file_header(major, sampled, size):
    h = bytearray(max(size, HEADER_BYTES) if size <= 4096 else HEADER_BYTES)
    h[0:8] = b"MPROFTRC"
    h[8] = major
    struct.pack_into("<II", h, 12, size, sampled)
    return h


def chunk(kind, flags, stream, raw, cut):
    payload = zlib.compress(raw, 1) if flags & 1 else raw
    stored = len(payload) + (1 if cut else 0)
    raw_bytes = len(raw) + (1 if cut and not flags & 1 else 0)
    h = struct.pack("<IBBHII", CHUNK_MAGIC, kind, flags, stream, stored, raw_bytes)
    h += struct.pack("<I", zlib.crc32(payload))
    return h + struct.pack("<I", zlib.crc32(h)) + payload


def main():
    seed, out = open(sys.argv[1], "rb").read(), sys.argv[2]
    mode, i = seed[0], 1
    if mode & 0x40:
        open(out, "wb").write(seed[1:])
        return
    size = HEADER_BYTES
    if mode & 0x80 and len(seed) > 1:
        size, i = seed[1] * 8, 2
    traces = [file_header(((mode >> 2) & 3) + 1, (mode >> 4) & 1, size)]
    while i + 7 <= len(seed):
        kind, flags, stream = seed[i], seed[i + 1], seed[i + 2] | seed[i + 3] << 8
        n = min(int.from_bytes(seed[i + 4:i + 7], "little"), len(seed) - i - 7)
        i += 7
        if kind == 0xFD:
            traces[-1][8] = flags
        elif kind == 0xFF:
            if len(traces) == 2:
                break
            traces.append(file_header((flags & 3) + 1, (mode >> 4) & 1, HEADER_BYTES))
            continue
        else:
            traces[-1] += chunk(2 if kind == 0xFE else kind, flags, stream, seed[i:i + n],
                                kind == 0xFE)
        i += n
    open(out, "wb").write(traces[0])
    if len(traces) == 2:
        open(out + ".2", "wb").write(traces[1])


main()
