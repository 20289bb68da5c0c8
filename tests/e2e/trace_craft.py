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


def chunks(data):
    """Each chunk of a trace after its 64-byte file header: (header bytes,
    stored payload, kind, flags, stream, payload inflated when deflated,
    whether it is an EVENTS chunk of the meta stream that META's
    stack_stream names)."""
    off, meta = 64, None
    while off + 24 <= len(data):
        head = data[off:off + 24]
        _magic, kind, flags, stream, stored, _raw, _c, _h = struct.unpack("<IBBHIIII", head)
        body = data[off + 24:off + 24 + stored]
        off += 24 + stored
        payload = zlib.decompress(body) if flags & 1 else body
        if kind == 1:
            for line in payload.decode(errors="replace").splitlines():
                if line.startswith("stack_stream="):
                    meta = int(line.split("=", 1)[1])
        yield head, body, kind, flags, stream, payload, kind == 2 and stream == meta


def records_span(buf, flags):
    """Where the records part of an EVENTS payload starts and ends (joined
    or split form)."""
    i = 0
    for _ in range(3):  # slot, lap, offset
        _, i = read_u(buf, i)
    if not flags & 2:
        return i, len(buf)
    r, _s = struct.unpack_from("<II", buf, i)
    i += 8 + (4 if (flags >> 2) & 7 else 0)
    return i, i + r


def meta_records(buf, start, end):
    """Each record of a meta stream's records part buf[start:end]: (kind,
    where it starts, where its body starts, where it ends); the body of a
    record below 0x80 is its varints.  Stops the script on a kind the meta
    stream does not carry."""
    i = start
    while i < end:
        kind, at = buf[i], i
        i += 1
        if kind >= 0x80:
            n, i = read_u(buf, i)
            yield kind, at, i, i + n
            i += n
            continue
        body = i
        if kind in (0x01, 0x02, 0x03):
            _, i = read_u(buf, i)
        elif kind in (0x04, 0x05):
            for _ in range(3):
                _, i = read_u(buf, i)
        elif kind != 0x00:
            raise SystemExit("record kind 0x%02x in the meta stream" % kind)
        yield kind, at, body, i
