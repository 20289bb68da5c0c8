#!/bin/bash
# repeated-diagnostics.sh - a program that starts many processes with the
# same diagnostic (a build running a static executable, or a program with
# its own malloc, in every step) gets that diagnostic once on stderr, with
# the number of processes, and each process's trace still holds it.  mprof
# printed one line per process: 40 "executed ..., which is not recorded"
# warnings even with -q, 40 "process PID: the program defines its own
# malloc" notes without it.  A diagnostic only one process gave keeps its
# "process PID: " line.  The same for the texts that name their process
# inside: 10 processes that each spawn 4 static programs get one "4
# programs started by a process (...) are not recorded: ... (in 10
# processes)" line, and 10 process files mprof cannot read one "a process
# (?) is not recorded: ... (in 10 processes)" line (each was a line of its
# own, naming its pid and file).  Programs: tests/progs/own_malloc.c,
# tests/progs/cases/27-static-binary.c, tests/progs/spawn_unreachable.c,
# and bash loops.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
N=40
$CC -static -O1 -o "$WORK/static_hello" "$PROGS_DIR/cases/27-static-binary.c" \
	>"$WORK/static.log" 2>&1 || skip "no static C library ($CC -static fails)"
build_c "$WORK/own_many" "$PROGS_DIR/own_malloc.c"
cp "$WORK/own_many" "$WORK/own_once"
cat >"$WORK/spawner.sh" <<EOS
#!/bin/bash
for i in \$(seq $N); do "$WORK/static_hello" >/dev/null; "$WORK/own_many" >/dev/null; done
"$WORK/own_once" >/dev/null
echo "spawned $N"
EOS
chmod +x "$WORK/spawner.sh"
static_text="executed $WORK/static_hello, which is not recorded: it is statically linked: LD_PRELOAD cannot reach it"
own_text() { echo "the program defines its own malloc (in $WORK/$1): its allocations cannot be recorded"; }

RUN_NAME=quiet mprof_run 120 "$WORK/q" -q -- "$WORK/spawner.sh"
expect_eq "-q: exit status as without mprof" 0 "$RUN_STATUS"
expect_eq "-q: stdout as without mprof" "spawned $N" "$(cat "$RUN_OUT")"
expect_eq "-q: stderr is the one warning with its count" \
	"mprof: warning: $static_text (in $N processes)" "$(cat "$RUN_ERR")"

RUN_NAME=loud mprof_run 120 "$WORK/t" -- "$WORK/spawner.sh"
expect_eq "exit status as without mprof" 0 "$RUN_STATUS"
expect_eq "stdout as without mprof" "spawned $N" "$(cat "$RUN_OUT")"
expect_eq "the static warning once, with its count" \
	"mprof: warning: $static_text (in $N processes)" \
	"$(grep -F 'statically linked' "$RUN_ERR")"
expect_eq "the own-malloc note once per text: counted, and one process's as it was" \
	"mprof: $(own_text own_many) (in $N processes)|mprof: process PID: $(own_text own_once)" \
	"$(grep -F 'own malloc' "$RUN_ERR" | sed -E 's/^mprof: process [0-9]+: /mprof: process PID: /' |
		paste -sd '|')"
expect_eq "no other line names a process" "" \
	"$(grep -E '^mprof: (warning: )?process [0-9]+' "$RUN_ERR" | grep -vF own_once)"

# every process that gave the note has it in its own report
with_note=0
for t in "$WORK"/t.*; do
	"$MPROF" report --format json "$t" 2>/dev/null >"$WORK/one.json" || continue
	json_eval "$WORK/one.json" '"\n".join(x["text"] for x in d["summary"]["diagnostics"])' |
		grep -qxF "$(own_text own_many)" && with_note=$((with_note + 1))
done
expect_eq "traces whose report has the own_many note" "$N" "$with_note"

build_c "$WORK/spawn_unreachable" "$PROGS_DIR/spawn_unreachable.c"
mkdir -p "$WORK/bin" && cp "$WORK/static_hello" "$WORK/bin/" || hard_error "cannot copy"
# 10 spawners; then 10 process files of 0xff bytes, a header no recorder writes
cat >"$WORK/spawners.sh" <<EOS
#!/bin/bash
for i in \$(seq 10); do "$WORK/spawn_unreachable" "$WORK/bin/static_hello" static_hello; done
for i in \$(seq 10); do
	head -c 4096 /dev/zero | tr '\\0' '\\377' >"\$MPROF_SESSION/p.40000\$i.00000000000000\$((i + 10))"
done
sleep 0.5
echo spawned
EOS
chmod +x "$WORK/spawners.sh"
PATH="$WORK/bin:$PATH" RUN_NAME=spawners mprof_run 120 "$WORK/s" -- "$WORK/spawners.sh"
expect_eq "spawners: exit status as without mprof" 0 "$RUN_STATUS"
expect_eq "spawners: stdout as without mprof (10 lines of statuses among the static programs' 40, then spawned)" \
	"10 51 spawned" \
	"$(grep -cx '4 4 4 4 0 127' "$RUN_OUT") $(wc -l <"$RUN_OUT") $(tail -n 1 "$RUN_OUT")"
expect_eq "the static spawns: one line, counted" \
	"mprof: warning: 4 programs started by a process ($WORK/spawn_unreachable) are not recorded: $WORK/bin/static_hello (and 3 more); it is statically linked: LD_PRELOAD cannot reach it (in 10 processes)" \
	"$(grep -F 'programs started by' "$RUN_ERR")"
expect_eq "the unreadable process files: one line, counted" \
	"mprof: warning: a process (?) is not recorded: its process file holds a header no recorder writes (the program wrote over its recorder's memory before mprof read it, or made the file) (in 10 processes)" \
	"$(grep -F 'is not recorded: its process file holds a header' "$RUN_ERR")"
finish
