"""tests/e2e/trace_craft.py - the pieces of a hand-made trace for the tests
that feed the reader traces mprof would not write (hostile-traces.sh,
cut-recording-rss.sh) and the scripts that look inside traces
(chunk_index.py, module_records.py): varints as trace/varint.h encodes
them, read back, and chunks with their header and checksums as
trace/chunk.h frames them (mprof-trace(5))."""
import struct
import zlib


def u(v):
    """An unsigned LEB128 varint."""
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def read_u(buf, i):
    """The unsigned varint at buf[i]: (value, index after it)."""
    v = shift = 0
    while True:
        b = buf[i]
        i += 1
        v |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            return v, i


def s(v):
    """A signed varint (zigzag, then LEB128)."""
    return u(((v << 1) ^ (v >> 63)) & (2**64 - 1))


def chunk(kind, payload, stream=0, deflated=True):
    """A chunk of kind for stream: header, header checksum, payload
    (deflated unless told not)."""
    z = zlib.compress(payload) if deflated else payload
    h = struct.pack("<IBBHIII", 0x4B43504D, kind, int(deflated), stream, len(z), len(payload),
                    zlib.crc32(z))
    return h + struct.pack("<I", zlib.crc32(h)) + z
