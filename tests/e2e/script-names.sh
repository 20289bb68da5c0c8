#!/bin/bash
# script-names.sh - a script started through its #! line is one process
# with one name: the table at the end of `mprof run`, its report's
# "program:" line and `mprof report --all`'s overview all name it by its
# image's own command line, "/bin/sh ./s2.sh", as ps(1) shows it (the
# table once said "./s2.sh", the command as typed, and the report
# "/bin/sh ./s2.sh").  A child's row is named as its report is too.  A
# narrow table drops only an interpreter's script's folder, not that of
# any command's second word.
# Programs and facts: tests/progs/tree_worker.c (exactly N allocations).
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/tree_worker" "$PROGS_DIR/tree_worker.c"
printf '#!/bin/sh\n./tree_worker 30\n' >"$WORK/s2.sh"
chmod +x "$WORK/s2.sh"
(cd "$WORK" && COLUMNS=200 RUN_NAME=s2 mprof_run 60 "$WORK/t" -- ./s2.sh)
RUN_ERR=$WORK/s2.err
expect_eq "run: two processes in the table" "mprof: 2 processes recorded, most allocations first:" \
	"$(grep 'processes recorded' "$RUN_ERR")"
# a table row's program: the text between "mprof:   " and its pid column
row_name() { sed -n "s|^mprof:   \(.*[^ ]\) \{1,\}[0-9]\{1,\} \{1,\}[0-9]\{1,\} \{1,\}[^ ]\{1,\} [^ ]\{1,\}  $1\$|\1|p" "$RUN_ERR"; }
report_json "$WORK/t.json" "$WORK/t"
expect_eq "the script's report names it as the kernel ran it" "/bin/sh ./s2.sh" \
	"$(q "$WORK/t.json" summary program.name)"
expect_eq "the table names the script as its report does" "/bin/sh ./s2.sh" "$(row_name "$WORK/t")"
CHILD=$(ls "$WORK"/t.[0-9]* 2>/dev/null | head -n 1)
[ -n "$CHILD" ] || hard_error "no child trace"
report_json "$WORK/c.json" "$CHILD"
expect_eq "the child's row is named as its report" "$(q "$WORK/c.json" summary program.name)" \
	"$(row_name "$CHILD")"
run_cmd 60 all "$MPROF" report --all -n 0 "$WORK/t"
expect_eq "report --all: the overview's row of the script" 1 \
	"$(grep -cE "^/bin/sh \./s2\.sh +[0-9]+ +exit 0 .* $WORK/t\$" "$RUN_OUT")"

# Only an interpreter's script loses its folder in a narrow table: diff's
# second word stays whole ("diff /dev/fd/63 /dev/fd/62" once read "diff 63
# /dev/fd/62", a file named 63).
(cd "$WORK" && COLUMNS=60 RUN_NAME=fd mprof_run 60 "$WORK/fd" -- bash -c \
	'diff /dev/fd/63 /dev/fd/62 63</dev/null 62</dev/null; exit 0')
RUN_ERR=$WORK/fd.err
expect_eq "narrow table: diff's row keeps its second word" 1 \
	"$(grep -c '^mprof:   diff /dev/fd/63… ' "$RUN_ERR")"
finish
