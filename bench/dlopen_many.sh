#!/bin/bash
# dlopen_many.sh MPROF_A MPROF_B [N] [ROUNDS] [CHURN] - interleaved rounds
# of `mprof run` (exact mode) of bench/dlopen_many.c over N copies (default
# 2000) of one small library that allocates 64 and 32 bytes (then CHURN
# dlclose-and-load-again, default 0), then of `mprof report` of the trace it
# wrote; prints each run's wall and CPU time (task-clock of mprof and its
# children, in ms, with perf), the trace's bytes and those of its module map
# records (tests/e2e/module_records.py), the report's wall time (a run of its
# own, without perf, whose start takes a few hundred ms here) and CPU time,
# the program's peak RSS and the launcher's CPU time (from the trace's END,
# through the JSON report), and the medians.  Scratch files go to a
# temporary folder.
set -eu
a=$1 b=$2 n=${3:-2000} rounds=${4:-5} churn=${5:-0}
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
printf '#include <stdlib.h>\nvoid *volatile lib_sink;\nvoid lib_alloc(void) { lib_sink = malloc(64); free(lib_sink); lib_sink = malloc(32); }\n' >"$dir/lib.c"
cc -O1 -shared -fPIC -o "$dir/lib.so" "$dir/lib.c"
cc -O1 -o "$dir/dlopen_many" "$here/dlopen_many.c"
mkdir "$dir/libs"
for i in $(seq 0 $((n - 1))); do cp "$dir/lib.so" "$dir/libs/lib$i.so"; done
# task_ms COMMAND...: the command's task-clock in ms (its output dropped)
task_ms() {
	local ms
	ms=$(perf stat -x, -e task-clock -- "$@" 2>&1 >/dev/null |
		sed -n 's/^\([0-9.]*\),.*task-clock.*/\1/p')
	echo "${ms%.*}"
}
for r in $(seq "$rounds"); do
	for which in A B; do
		m=$a
		[ "$which" = B ] && m=$b
		t0=$(date +%s%N)
		cpu=$(task_ms "$m" run -q -o "$dir/t" -- "$dir/dlopen_many" "$dir/libs" "$n" "$churn")
		t1=$(date +%s%N)
		"$m" report "$dir/t" >/dev/null
		t2=$(date +%s%N)
		rcpu=$(task_ms "$m" report "$dir/t")
		bytes=$(stat -c %s "$dir/t")
		mod=$(python3 "$here/../tests/e2e/module_records.py" "$dir/t" | cut -d' ' -f6)
		"$m" report --format json -o "$dir/t.json" "$dir/t"
		rss_launcher=$(python3 -c 'import json, sys
s = json.load(open(sys.argv[1]))["summary"]
print(s["peak_rss_kib"], s["profiler"]["launcher_cpu_ns"] // 1000000)' "$dir/t.json")
		echo "$which wall_ms $(((t1 - t0) / 1000000)) cpu_ms $cpu trace_bytes $bytes" \
			"module_bytes $mod report_wall_ms $(((t2 - t1) / 1000000)) report_cpu_ms $rcpu" \
			"peak_rss_kib ${rss_launcher% *} launcher_cpu_ms ${rss_launcher#* }"
		rm -f "$dir"/t*
	done
done | tee "$dir/runs"
for which in A B; do
	for col in 3 5 7 9 11 13 15 17; do
		grep "^$which " "$dir/runs" | cut -d' ' -f$col | sort -n |
			awk -v w="$which" -v c="$col" 'BEGIN {
				split("wall_ms cpu_ms trace_bytes module_bytes report_wall_ms report_cpu_ms peak_rss_kib launcher_cpu_ms", k, " ")
			} {v[NR]=$1} END {printf "%s median %s %d\n", w, k[(c - 1) / 2], v[int((NR + 1) / 2)]}'
	done
done
