#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A replaced binary. Two runs of a copy of sym-old (whose hot function is
# old_hot) at DIR/sym-prog, each time replaced by a copy of sym-new
# (whose hot function is new_hot) renamed over DIR/sym-prog:
#  1. 'perfmini record -- DIR/sym-prog': the rename happens during the
#     recording, after the program started and before it spins;
#  2. 'perfmini record -p': the rename happens before the attach, so the
#     path perfmini finds in /proc/PID/maps holds the other binary.
# The samples ran sym-old's code: they must name old_hot, called from
# main, and none may name new_hot.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$srcdir/tests/symbol/symlib.sh"

need_target sym-old
need_target sym-new
mkdir "$tmp/bin1" "$tmp/bin2"
for d in bin1 bin2; do
	cp "$TARGETS/sym-old" "$tmp/$d/sym-prog"
	cp "$TARGETS/sym-new" "$tmp/$d/sym-prog.new"
done

# replace DIR PID: renames DIR/sym-prog.new over DIR/sym-prog, which
# process PID runs.
replace() {
	mv -f "$1/sym-prog.new" "$1/sym-prog"
	nm_addr "$1/sym-prog" new_hot >/dev/null
	grep -q "$1/sym-prog (deleted)\$" "/proc/$2/maps" ||
		fail "the maps of process $2 do not show its binary as replaced"
}

need_perf
say "1. replaced during 'record --'"
record_bg "$tmp/during.data" -- "$tmp/bin1/sym-prog" -w 1
wait_line "$tmp/record.out" ': ready, pid [0-9]+' 30 ||
	fail "sym-prog did not start within 30 s: $(cat "$tmp/record.err")"
tpid=$(sed -n 's/.*: ready, pid \([0-9][0-9]*\).*/\1/p' "$tmp/record.out" | head -n 1)
replace "$tmp/bin1" "$tpid"
kill -USR1 "$tpid"
record_wait 60 "$tmp/during.data"
run_report "$tmp/during.data" "$tmp/during.folded"
check_user "$tmp/during.folded" "main;old_hot" sym-prog 200
check_none "$tmp/during.folded" '(^|;)new_hot(;|$)' "" "with new_hot"

say "2. replaced before 'record -p'"
start_ready "$tmp/target.out" "$tmp/bin2/sym-prog" -w 1
replace "$tmp/bin2" "$tpid"
attach_and_start "$tmp/before.data"
finish_target 60
record_wait 10 "$tmp/before.data"
run_report "$tmp/before.data" "$tmp/before.folded"
check_user "$tmp/before.folded" "main;old_hot" sym-prog 200
check_none "$tmp/before.folded" '(^|;)new_hot(;|$)' "" "with new_hot"
