#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# 'perfmini report --tree' and perf's spellings of it (-g caller|callee,
# --children, --no-children, --percent-limit) on callers, whose
# callers_hot has two callers that ask it for work at 3:1. perfmini
# records perf recording callers, so that both see the same run:
#   -g callee: under callers_hot, the shares of callers_from_a and
#              callers_from_b are within 3 points of those of 'perf report
#              --stdio --children -g callee', and within 8 of 75 and 25;
#   -g caller: under main, the same two branches, callers_hot below each;
#   --no-children: a Self column alone, callers_hot first, its callers'
#              shares within 3 points of perf's --no-children ones;
#   --percent-limit 50: callers_from_b's row (25%) is left out;
#   -g callee,30: callers_from_b's branch folded into "[1 more ...]";
#   -g address: the callers named with the lines of their calls in
#              callers.c;
#   --diff against itself: every change +0.00;
#   -g flat, or --children with --folded: one line (and the line that
#              points to --help), exit 2.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

command -v perf >/dev/null || fail "no perf (scripts/deps.sh installs linux-perf)"
[ -x "$TARGETS/callers" ] || fail "no $TARGETS/callers: build it first (make check)"
need_perf
run_record 120 "$tmp/tree.data" -- perf record -q -g -e cpu-clock -F 999 \
	-o "$tmp/perf.data" -- "$TARGETS/callers" 4

# block FILE ROW_RE: the lines of FILE from the row matching ROW_RE to the blank line after it.
block() {
	awk -v re="$2" '$0 ~ re { on = 1 } on { print } on && /^$/ { exit }' "$1"
}

# branch FILE NAME: the share of the branch "--SHARE--NAME" in FILE (a block); -1 when none.
branch() {
	awk -v name="$2" '{
		if (match($0, /--[0-9.]+%( [-+][0-9.]+)?--/) &&
		    substr($0, RSTART + RLENGTH) == name) {
			s = substr($0, RSTART + 2)
			sub(/%.*/, "", s)
			print s
			found = 1
			exit
		}
	} END { if (!found) print -1 }' "$1"
}

# near A B POINTS: whether A and B are within POINTS of each other.
near() {
	awk -v a="$1" -v b="$2" -v d="$3" 'BEGIN { exit !(a >= 0 && b >= 0 && a - b <= d && b - a <= d) }'
}

# pm FILE ARGS...: 'perfmini report -i tree.data --comm callers ARGS...' into FILE.
pm() {
	pm_out=$1
	shift
	"$PERFMINI" report -i "$tmp/tree.data" --comm callers "$@" >"$pm_out" 2>"$tmp/pm.err" ||
		fail "report $* exited $?: $(cat "$tmp/pm.err")"
}

perf report -i "$tmp/perf.data" --stdio --children -g callee --comm callers \
	>"$tmp/perf.children" 2>/dev/null || fail "perf report --children failed"
perf report -i "$tmp/perf.data" --stdio --no-children -g callee --comm callers \
	>"$tmp/perf.self" 2>/dev/null || fail "perf report --no-children failed"
block "$tmp/perf.children" '\[\.\] callers_hot *$' >"$tmp/perf.hot"
block "$tmp/perf.self" '\[\.\] callers_hot *$' >"$tmp/perf.hot-self"

pm "$tmp/callee.txt" --tree -g callee
block "$tmp/callee.txt" '  callers_hot$' >"$tmp/pm.hot"
cat "$tmp/pm.hot" >&3
for c in a b; do
	want=75
	[ $c = a ] || want=25
	ours=$(branch "$tmp/pm.hot" callers_from_$c)
	theirs=$(branch "$tmp/perf.hot" callers_from_$c)
	say "-g callee: callers_from_$c has $ours% of the samples under callers_hot, perf $theirs%"
	near "$ours" "$theirs" 3 || fail "callers_from_$c: $ours% against perf's $theirs%"
	near "$ours" "$want" 8 || fail "callers_from_$c: $ours%, not about $want%"
done

# --children (the default): main's callees, each caller with callers_hot below it.
pm "$tmp/caller.txt" --children -g caller
block "$tmp/caller.txt" '  main$' >"$tmp/pm.main"
cat "$tmp/pm.main" >&3
for c in a b; do
	ours=$(branch "$tmp/pm.main" callers_from_$c)
	theirs=$(branch "$tmp/pm.hot" callers_from_$c)
	near "$ours" "$theirs" 1 || fail "-g caller: main's callers_from_$c has $ours%, not $theirs%"
	# In its branch: the lines below it whose text starts right of its own
	# (a branch of a few samples elsewhere may come first, or beside).
	awk -v name="--callers_from_$c" '
	in_branch { if (match($0, /[^ |]/) && RSTART <= col) exit; if (/callers_hot$/) { hot = 1; exit } }
	substr($0, length($0) - length(name) + 1) == name { match($0, /-/); col = RSTART; in_branch = 1 }
	END { exit !hot }' "$tmp/pm.main" ||
		fail "-g caller: callers_hot is not under main's callers_from_$c"
done

pm "$tmp/self.txt" --no-children
grep -Eq '^ +Self +Module +Function$' "$tmp/self.txt" ||
	fail "--no-children: the heading is not Self Module Function"
awk '/^ +[0-9.]+%/ { print; exit }' "$tmp/self.txt" | grep -q ' callers_hot$' ||
	fail "--no-children: callers_hot is not the first row"
block "$tmp/self.txt" '  callers_hot$' >"$tmp/pm.hot-self"
for c in a b; do
	ours=$(branch "$tmp/pm.hot-self" callers_from_$c)
	theirs=$(branch "$tmp/perf.hot-self" callers_from_$c)
	say "--no-children: callers_from_$c $ours%, perf $theirs%"
	near "$ours" "$theirs" 3 || fail "--no-children: callers_from_$c $ours% against perf's $theirs%"
done

pm "$tmp/limit.txt" --percent-limit 50
grep -q '  callers_hot$' "$tmp/limit.txt" || fail "--percent-limit 50 left callers_hot out"
! grep -q '  callers_from_b$' "$tmp/limit.txt" || fail "--percent-limit 50 kept callers_from_b's row"

pm "$tmp/fold.txt" --tree -g callee,30
block "$tmp/fold.txt" '  callers_hot$' >"$tmp/pm.fold"
[ "$(branch "$tmp/pm.fold" callers_from_b)" = -1 ] ||
	fail "-g callee,30: callers_from_b's branch (under 30%) was drawn"
grep -Eq -e '--[0-9.]+%--\[1 more, each under 30%\]$' "$tmp/pm.fold" ||
	fail "-g callee,30: no folded branch of one caller"

# The lines of the calls in callers.c, as the source has them.
line_a=$(grep -n 'callers_hot(x, 3 \* rounds / 4)' "$srcdir/tests/targets/callers.c" | cut -d: -f1)
line_b=$(grep -n 'callers_hot(x, rounds / 4)' "$srcdir/tests/targets/callers.c" | cut -d: -f1)
pm "$tmp/lines.txt" -g callee,address
grep -Eq -e "--callers_from_a:callers.c:$line_a\$" "$tmp/lines.txt" ||
	fail "-g address: no branch callers_from_a:callers.c:$line_a"
grep -Eq -e "--callers_from_b:callers.c:$line_b\$" "$tmp/lines.txt" ||
	fail "-g address: no branch callers_from_b:callers.c:$line_b"

pm "$tmp/diff.txt" --tree -g callee --diff "$tmp/tree.data"
block "$tmp/diff.txt" '  callers_hot$' >"$tmp/pm.diff"
grep -q -e '--[0-9.]*% +0.00--callers_from_a$' "$tmp/pm.diff" ||
	fail "--diff with itself: callers_from_a's branch has a change"
awk 'NR > 1 && /^ +[0-9.]+%/ && $3 != "+0.00" { bad = 1 } END { exit bad }' "$tmp/diff.txt" ||
	fail "--diff with itself: a row's change is not +0.00"

for bad in "-g flat" "--children --folded" "--percent-limit 101"; do
	rc=0
	# shellcheck disable=SC2086 # the options are words
	"$PERFMINI" report -i "$tmp/tree.data" $bad >/dev/null 2>"$tmp/bad.err" || rc=$?
	[ "$rc" -eq 2 ] || fail "report $bad exited $rc, not 2"
	grep -v "^Try 'perfmini report --help'" "$tmp/bad.err" >"$tmp/bad.said" || :
	[ "$(wc -l <"$tmp/bad.said")" -eq 1 ] || fail "report $bad did not say one line"
done
