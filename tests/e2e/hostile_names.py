#!/usr/bin/env python3
"""tests/e2e/hostile_names.py - helpers of tests/e2e/hostile-names.sh.

  hostile_names.py build CC LIB_SOURCE WORK
      makes WORK/DIR (DIR's name holds a newline, a tab, ';', '<', '"',
      ESC [31m and the byte 0xff), copies LIB_SOURCE there as
      'hostile;\\n<lib>.c', builds it into DIR/libhostile.so with -g and
      -DNAME_A.. -DNAME_E placeholders of the hostile names' lengths, then
      writes the names over the placeholders, byte for byte, everywhere in
      the file (symbol tables, debug info).  Prints DIR's path.
  hostile_names.py name KEY
      prints the hostile name KEY (A..E, or dir, title, comm, marker) as
      raw bytes, without a newline.
  hostile_names.py terminal-safe FILE
      prints "ok" when FILE is valid UTF-8 with no control character but
      newline (no ESC, DEL, nor C1 control U+0080-U+009F), else the first
      offence with its offset.
"""

import os
import subprocess
import sys

NAMES = {
    "A": b"</script><script>alert(1)</script>",
    "B": b"<img src=x onerror=alert(2)>",
    "C": b"semi;colon\nnew\tline 42",
    "D": b"\x1b[31mred\x1b]0;title\x07\xc2\x9b\xff\xfe end",
    "E": b"q\"uote\\back\\x41&amp;\xe2\x80\xa8sep",
    "dir": b"dir\n\t;<\"\x1b[31m\xff",
    "title": b"title\x1b[2J\n;<b>\"\xff\\x41 <script>alert(3)</script>",
    "comm": b"c\x1b[31m\n;<\xff",
    "marker": b"mark\x1b[31m;\n<x>\xff\\x41",
}


def build(cc, source, work):
    d = os.path.join(os.fsencode(work), NAMES["dir"])
    os.makedirs(d, exist_ok=True)
    lib = os.path.join(d, b"libhostile.so")
    copy = b"hostile;\n<lib>.c"
    with open(source, "rb") as f, open(os.path.join(d, copy), "wb") as g:
        g.write(f.read())
    defs, placeholders = [], {}
    for k in "ABCDE":
        p = ("hn_%s_" % k).encode() + b"x" * (len(NAMES[k]) - 5)
        placeholders[k] = p
        defs.append(b"-DNAME_" + k.encode() + b"=" + p)
    subprocess.check_call([os.fsencode(cc), b"-O1", b"-g", b"-shared", b"-fPIC", b"-o", lib, copy]
                          + defs, cwd=d)
    with open(lib, "rb") as f:
        data = f.read()
    for k, p in placeholders.items():
        if data.count(p) < 2:  # .symtab's string and the debug info's at least
            sys.exit("placeholder %s found %d times" % (p, data.count(p)))
        data = data.replace(p, NAMES[k])
    with open(lib, "wb") as f:
        f.write(data)
    sys.stdout.buffer.write(d)


def terminal_safe(path):
    with open(path, "rb") as f:
        data = f.read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        print("not UTF-8 at byte %d: %r" % (e.start, data[max(0, e.start - 30):e.start + 10]))
        return
    for i, c in enumerate(text):
        o = ord(c)
        if (o < 0x20 and c != "\n") or 0x7F <= o <= 0x9F:
            print("control U+%04X at character %d: %r" % (o, i, text[max(0, i - 30):i + 10]))
            return
    print("ok")


def main():
    if sys.argv[1] == "build":
        build(*sys.argv[2:5])
    elif sys.argv[1] == "name":
        sys.stdout.buffer.write(NAMES[sys.argv[2]])
    elif sys.argv[1] == "terminal-safe":
        terminal_safe(sys.argv[2])
    else:
        sys.exit("unknown command")


main()
