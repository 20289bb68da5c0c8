#!/bin/bash
# dlopen_many.sh MPROF_A MPROF_B [N] [ROUNDS] - interleaved rounds of
# `mprof run` (exact mode) of bench/dlopen_many.c over N copies (default
# 2000) of one small library that allocates 64 and 32 bytes; prints each
# run's wall and CPU time (task-clock of mprof and its children, in ms,
# with perf) and the medians.  Scratch files go to a temporary folder.
set -eu
a=$1 b=$2 n=${3:-2000} rounds=${4:-5}
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
printf '#include <stdlib.h>\nvoid *volatile lib_sink;\nvoid lib_alloc(void) { lib_sink = malloc(64); free(lib_sink); lib_sink = malloc(32); }\n' >"$dir/lib.c"
cc -O1 -shared -fPIC -o "$dir/lib.so" "$dir/lib.c"
cc -O1 -o "$dir/dlopen_many" "$here/dlopen_many.c"
mkdir "$dir/libs"
for i in $(seq 0 $((n - 1))); do cp "$dir/lib.so" "$dir/libs/lib$i.so"; done
for r in $(seq "$rounds"); do
	for which in A B; do
		m=$a
		[ "$which" = B ] && m=$b
		t0=$(date +%s%N)
		cpu=$(perf stat -x, -e task-clock -- "$m" run -q -o "$dir/t" -- "$dir/dlopen_many" \
			"$dir/libs" "$n" 2>&1 >/dev/null | sed -n 's/^\([0-9.]*\),.*task-clock.*/\1/p')
		t1=$(date +%s%N)
		echo "$which wall_ms $(((t1 - t0) / 1000000)) cpu_ms ${cpu%.*}"
		rm -f "$dir"/t*
	done
done | tee "$dir/runs"
for which in A B; do
	for col in 3 5; do
		grep "^$which " "$dir/runs" | cut -d' ' -f$col | sort -n |
			awk -v w="$which" -v c="$col" '{v[NR]=$1} END {printf "%s median %s %d\n", w, (c == 3 ? "wall_ms" : "cpu_ms"), v[int((NR + 1) / 2)]}'
	done
done
