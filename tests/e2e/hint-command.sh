#!/bin/bash
# hint-command.sh - the commands mprof's messages tell the user to run name
# mprof as they can paste it: "mprof" when that name finds this very mprof
# on PATH, else the path they ran it by (./cli/mprof from the build tree),
# quoted when it needs it; never "mprof" when that finds another mprof or
# none.  Before, every hint said "mprof report ..." whatever was run, so a
# build-tree run's hint was "command not found" or ran an older install.
# The closing hints of `mprof run` (one trace, child traces, the page),
# the usage errors of the launcher and of the analyzer (through mprof and
# run as itself), and each pasted hint is run to show it works.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/sm" "$PROGS_DIR/sample_margins.c"
cd "$WORK" || hard_error "cannot enter $WORK"
# folders that hold nothing but what each case puts on PATH
mkdir -p "$WORK/onpath" "$WORK/other" "$WORK/my dir"
ln -s "$MPROF" "$WORK/onpath/mprof"
ln -s "$MPROF" "$WORK/my dir/mprof"
printf '#!/bin/sh\necho another mprof\n' >"$WORK/other/mprof"
chmod +x "$WORK/other/mprof"
NOPATH=/usr/bin:/bin

# hint_of FILE WORDS: the command after "WORDS: " in mprof's line of FILE
hint_of() { sed -n "s/^mprof: .*$2: //p" "$1" | head -1; }
# pasted NAME CMD: runs CMD as the user's shell would, from $WORK
pasted() { run_cmd 60 "$1" env PATH="$3" sh -c "$2"; }

# 1. run by its absolute path, no mprof on PATH: the path
run_cmd 60 abs env PATH=$NOPATH "$MPROF" run -o "$WORK/t1" -- "$WORK/sm" 10 100
expect_eq "1. by absolute path: the closing hints name it by that path" \
	"mprof: trace written to $WORK/t1; view it with: $MPROF report $WORK/t1
mprof: a page to look at it: $MPROF report --html $WORK/t1.html $WORK/t1" \
	"$(grep '^mprof: \(trace\|a page\)' "$RUN_ERR")"
pasted p1 "$(hint_of "$WORK/abs.err" 'view it with')" $NOPATH
expect_eq "1. the pasted 'view it with' works" 0 "$RUN_STATUS"
expect_match "1. ... and reports the trace" "^mprof report: $WORK/t1 \\(exact" "$(head -1 "$RUN_OUT")"
pasted p1h "$(hint_of "$WORK/abs.err" 'a page to look at it')" $NOPATH
expect_eq "1. the pasted page hint works" "0 yes" "$RUN_STATUS $([ -s "$WORK/t1.html" ] && echo yes)"

# 2. run by a relative path from another folder: that path, which works
# from where the user is
mkdir -p "$WORK/sub"
ln -s "$MPROF" "$WORK/sub/mprof"
run_cmd 60 rel env PATH=$NOPATH ./sub/mprof run -o t2 -- "$WORK/sm" 10 100
expect_eq "2. by ./sub/mprof: the hint says ./sub/mprof" \
	"mprof: trace written to t2; view it with: ./sub/mprof report t2" \
	"$(grep '^mprof: trace' "$RUN_ERR")"
pasted p2 "$(hint_of "$WORK/rel.err" 'view it with')" $NOPATH
expect_eq "2. the pasted hint works" 0 "$RUN_STATUS"

# 3. on PATH as the same file: "mprof", whether typed so or by its path
run_cmd 60 onp env PATH="$WORK/onpath:$NOPATH" mprof run -o t3 -- "$WORK/sm" 10 100
expect_eq "3. typed as mprof, found on PATH: mprof" \
	"mprof: trace written to t3; view it with: mprof report t3" "$(grep '^mprof: trace' "$RUN_ERR")"
run_cmd 60 onp2 env PATH="$WORK/onpath:$NOPATH" "$MPROF" run -o t3b -- "$WORK/sm" 10 100
expect_eq "3. by its path while PATH finds the same file as mprof: mprof" \
	"mprof: trace written to t3b; view it with: mprof report t3b" "$(grep '^mprof: trace' "$RUN_ERR")"
pasted p3 "$(hint_of "$WORK/onp2.err" 'view it with')" "$WORK/onpath:$NOPATH"
expect_eq "3. the pasted hint works" 0 "$RUN_STATUS"

# 4. another mprof first on PATH: not "mprof", which would run that one
run_cmd 60 oth env PATH="$WORK/other:$NOPATH" "$MPROF" run -o t4 -- "$WORK/sm" 10 100
expect_eq "4. PATH's mprof is another: the path run" \
	"mprof: trace written to t4; view it with: $MPROF report t4" "$(grep '^mprof: trace' "$RUN_ERR")"

# 5. a path with a space: quoted, and the quoted command works
run_cmd 60 sp env PATH=$NOPATH "$WORK/my dir/mprof" run -o t5 -- /bin/sh -c \
	"'$WORK/sm' 10 100; '$WORK/sm' 10 100"
expect_eq "5. children: --all, the path quoted" \
	"'$WORK/my dir/mprof' report --all t5" "$(hint_of "$WORK/sp.err" 'view them all with')"
pasted p5 "$(hint_of "$WORK/sp.err" 'view them all with')" $NOPATH
expect_eq "5. the pasted hint works" 0 "$RUN_STATUS"
expect_match "5. ... and reports the three traces" "^mprof report: 3 traces" "$(head -1 "$RUN_OUT")"
expect_match "5. the page hint names the program's trace, the path quoted" \
	"^'$WORK/my dir/mprof' report --html (t5[.0-9]*)\\.html \\1\$" \
	"$(hint_of "$WORK/sp.err" 'a page to look at [^:]*')"

# 6. usage errors: "see 'CMD ... --help'", from the launcher and from the
# analyzer it runs for report and diff
run_cmd 60 u1 env PATH=$NOPATH "$MPROF" run --no-such-option
expect_match "6. run: the path" "\\(see '$MPROF run --help'\\)\$" "$(cat "$RUN_ERR")"
run_cmd 60 u2 env PATH="$WORK/onpath:$NOPATH" "$MPROF" run --no-such-option
expect_match "6. run, on PATH: mprof" "\\(see 'mprof run --help'\\)\$" "$(cat "$RUN_ERR")"
run_cmd 60 u3 env PATH=$NOPATH "$MPROF" report --no-such-option t1
expect_eq "6. report (the analyzer): the path" \
	"mprof: report: unknown option '--no-such-option' (see '$MPROF report --help')" "$(cat "$RUN_ERR")"
run_cmd 60 u4 env PATH="$WORK/onpath:$NOPATH" "$MPROF" diff t1
expect_eq "6. diff (the analyzer), on PATH: mprof" \
	"mprof: diff: wants two traces, A and B (see 'mprof diff --help')" "$(cat "$RUN_ERR")"
run_cmd 60 u5 env PATH=$NOPATH "$MPROF" no-such-command
expect_match "6. an unknown command: the path" "\\(see '$MPROF --help'\\)\$" "$(cat "$RUN_ERR")"
run_cmd 60 u6 env PATH=$NOPATH "$MPROF_ANALYZE" report --no-such-option t1
expect_eq "6. the analyzer run as itself: its own path" \
	"mprof-analyze: report: unknown option '--no-such-option' (see '$MPROF_ANALYZE report --help')" \
	"$(cat "$RUN_ERR")"
pasted p6 "$MPROF_ANALYZE report --help" $NOPATH
expect_eq "6. ... which works" 0 "$RUN_STATUS"
finish
