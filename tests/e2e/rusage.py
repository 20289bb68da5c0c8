#!/usr/bin/env python3
"""tests/e2e/rusage.py OUT COMMAND... - runs COMMAND (stdin, stdout and
stderr inherited), writes the peak resident set size in KiB of COMMAND and
every descendant it waited for (getrusage RUSAGE_CHILDREN, ru_maxrss) to OUT,
their processor time (user + system, ms) to OUT.cpu, and exits with
COMMAND's status (128 + N when killed by signal N)."""
import resource
import subprocess
import sys

if len(sys.argv) < 3:
    sys.stderr.write(__doc__)
    sys.exit(2)
proc = subprocess.run(sys.argv[2:])
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
with open(sys.argv[1], "w") as out:
    out.write("%d\n" % usage.ru_maxrss)
with open(sys.argv[1] + ".cpu", "w") as out:
    out.write("%d\n" % round((usage.ru_utime + usage.ru_stime) * 1000))
sys.exit(128 - proc.returncode if proc.returncode < 0 else proc.returncode)
