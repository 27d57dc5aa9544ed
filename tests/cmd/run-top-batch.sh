#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# 'perfmini top --batch', snapshots for scripts, of mix 70 (a program
# whose calls go 70% to mix_a and 30% to mix_b, both called from
# mix_round: its source says so):
#   -b -n 3: exactly three snapshots, each the three lines on what is
#     shown (the command named) and the heading; in the last two (the
#     first may come before the naming thread, on a loaded machine),
#     mix_a first with at least 45% of the samples and mix_b second,
#     mix_a's self share 70% of the two within 10 points; nothing cut, no
#     line over the widest cell;
#   -s total: main above mix_a, its Total% at least mix_a's (the second
#     snapshot of two, as the next);
#   -s pid,symbol: a Process column, mix's row 'mix-PID' with PID the
#     program's;
#   -o FILE: a data file whose report has mix_a first too, and at least
#     as many samples as the last snapshot showed;
#   a reader that goes (| head): top ends at once, exit 0, its command
#     stopped;
#   a stdout that cannot be written (/dev/full): one line, exit 1;
#   no target, a window shorter than the delay, a bad --sort: exit 2;
#   perf top's --stdio: exit 2, one line naming -b instead.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

need_perf

# snapshot N FILE: the Nth snapshot of $tmp/top.out (its lines up to the blank one).
snapshot() {
	awk -v n="$1" 'BEGIN { k = 1 } /^$/ { k++; next } k == n' "$tmp/top.out" >"$2"
}

# row FILE I: the Ith row of a snapshot's table (1: the first), its fields.
row() {
	awk -v i="$2" 'f { if (++k == i) { print; exit } } /^ +Self% +Total%/ { f = 1 }' "$1"
}

rc=0
run_timeout 60 "$PERFMINI" top -b -n 3 -- "$TARGETS/mix" 70 30 >"$tmp/top.out" 2>"$tmp/top.err" ||
	rc=$?
cat "$tmp/top.out" "$tmp/top.err" >&3
[ "$rc" -eq 0 ] || fail "top -b -n 3 exited $rc"
[ ! -s "$tmp/top.err" ] || fail "top -b -n 3 wrote on stderr: $(head -n 2 "$tmp/top.err")"
n=$(grep -c '^perfmini top: ' "$tmp/top.out" || :)
[ "$n" -eq 3 ] || fail "$n snapshots, not 3"
for i in 1 2 3; do
	snapshot "$i" "$tmp/snap$i"
	sed -n 2p "$tmp/snap$i" | grep -q "^command '.*/mix 70 30' runs; cpu-clock at 999 Hz" ||
		fail "snapshot $i does not say what is recorded: $(sed -n 2p "$tmp/snap$i")"
	sed -n 4p "$tmp/snap$i" | grep -Eq '^ +Self% +Total% +Module +Function$' ||
		fail "snapshot $i: no heading on its fourth line"
	[ "$i" -gt 1 ] || continue
	first=$(row "$tmp/snap$i" 1)
	second=$(row "$tmp/snap$i" 2)
	[ "$(echo "$first" | awk '{ print $3 " " $4 }')" = "mix mix_a" ] ||
		fail "snapshot $i: the first row is not mix's mix_a: $first"
	[ "$(echo "$second" | awk '{ print $4 }')" = mix_b ] ||
		fail "snapshot $i: the second row is not mix_b: $second"
	a=$(echo "$first" | awk '{ print $1 + 0 }')
	b=$(echo "$second" | awk '{ print $1 + 0 }')
	say "snapshot $i: mix_a $a%, mix_b $b%"
	awk -v a="$a" -v b="$b" 'BEGIN { r = 100 * a / (a + b); exit !(a >= 45 && r >= 60 && r <= 80) }' ||
		fail "snapshot $i: mix_a $a% and mix_b $b% are not 70:30 (within 10 points) of most samples"
done
# Nothing cut off a terminal: the long lines are whole.
if grep -v '^\.\.\. [0-9]* more rows' "$tmp/snap1" | grep -q '\.\.\.'; then
	fail "a snapshot off a terminal has a cut cell"
fi

# -s total: main (99% of the samples) above mix_a (in the second snapshot,
# its frames named).
rc=0
run_timeout 60 "$PERFMINI" top -b -n 2 -s total -E 0 -- "$TARGETS/mix" 70 30 >"$tmp/top.out" \
	2>&3 || rc=$?
[ "$rc" -eq 0 ] || fail "top -b -s total exited $rc"
snapshot 2 "$tmp/total"
cat "$tmp/total" >&3
grep -q '^functions by total share' "$tmp/total" || fail "-s total: the view does not say so"
awk '/^ +Self% +Total%/ { f = 1; next }
	f && $4 == "main" && !m { m = NR; mt = $2 + 0 }
	f && $4 == "mix_a" && !a { a = NR; at = $2 + 0 }
	f { t = $2 + 0; if (prev != "" && t > prev) bad = 1; prev = t }
	END { exit !(m && a && m < a && mt >= at && !bad) }' "$tmp/total" ||
	fail "-s total: not ordered by Total%, main above mix_a"

# -s pid,symbol: the process column names mix's process.
rc=0
run_timeout 60 "$PERFMINI" top -b -n 2 -s pid,symbol -- sh -c \
	"echo \$\$ >'$tmp/pid'; exec '$TARGETS/mix' 70 30" >"$tmp/top.out" 2>&3 || rc=$?
[ "$rc" -eq 0 ] || fail "top -b -s pid,symbol exited $rc"
snapshot 2 "$tmp/pid.snap"
cat "$tmp/pid.snap" >&3
sed -n 4p "$tmp/pid.snap" | grep -Eq '^ +Self% +Total% +Process +Function$' ||
	fail "-s pid,symbol: the heading is not Self% Total% Process Function"
row "$tmp/pid.snap" 1 | grep -Eq " mix-$(cat "$tmp/pid") +mix_a\$" ||
	fail "-s pid,symbol: the first row is not mix-$(cat "$tmp/pid")'s mix_a: $(row "$tmp/pid.snap" 1)"

# -o: the data file, reported.
rc=0
run_timeout 60 "$PERFMINI" top -b -n 2 -o "$tmp/top.data" -- "$TARGETS/mix" 70 30 \
	>"$tmp/top.out" 2>"$tmp/top.err" || rc=$?
cat "$tmp/top.err" >&3
[ "$rc" -eq 0 ] || fail "top -b -o exited $rc"
grep -q "wrote $tmp/top.data" "$tmp/top.err" || fail "top -o did not say it wrote the data file"
"$PERFMINI" report -i "$tmp/top.data" -n 2 >"$tmp/report.out" 2>&3 || fail "report of top -o failed"
awk '/^ Self%/ { f = 1; next } f { print $6; exit }' "$tmp/report.out" | grep -qx mix_a ||
	fail "the report of top -o does not have mix_a first: $(cat "$tmp/report.out")"
shown=$(sed -n 's/^perfmini top: [0-9]* samples\/s, \([0-9]*\) in the last .*/\1/p' \
	"$tmp/top.out" | tail -n 1)
kept=$(sed -n 's/^Samples: *\([0-9]*\).*/\1/p' "$tmp/report.out")
say "-o: $kept samples kept, $shown in the last snapshot"
if [ -z "$kept" ] || [ -z "$shown" ] || [ "$kept" -lt "$shown" ]; then
	fail "the data file has $kept samples, fewer than the $shown of the last snapshot"
fi

# A reader that goes: top ends with it, its command stopped.
rc=0
run_timeout 60 sh -c "{ '$PERFMINI' top -b -d 0.2 -- '$TARGETS/spin-pie' 57 2>'$tmp/head.err'
	echo \$? >'$tmp/head.rc'; } | head -n 1 >'$tmp/head.out'" || rc=$?
if [ "$rc" -ne 0 ] || [ "$(cat "$tmp/head.rc")" != 0 ]; then
	fail "top -b | head: exit $(cat "$tmp/head.rc" 2>/dev/null)"
fi
grep -q '^perfmini top: ' "$tmp/head.out" || fail "top -b | head printed no snapshot"
[ ! -s "$tmp/head.err" ] || fail "top -b | head wrote on stderr: $(cat "$tmp/head.err")"
n=50
while pgrep -f "$TARGETS/spin-pie 57" >/dev/null 2>&1 && [ "$n" -gt 0 ]; do
	n=$((n - 1))
	sleep 0.1
done
if pgrep -f "$TARGETS/spin-pie 57" >/dev/null 2>&1; then
	pkill -f "$TARGETS/spin-pie 57" || :
	fail "top -b | head left its command running"
fi

# Errors.
rc=0
run_timeout 60 "$PERFMINI" top -b -n 1 -- "$TARGETS/spin-pie" 1 >/dev/full 2>"$tmp/full.err" ||
	rc=$?
if [ "$rc" -ne 1 ] || [ "$(wc -l <"$tmp/full.err")" -ne 1 ]; then
	fail "top -b >/dev/full: exit $rc, stderr: $(cat "$tmp/full.err")"
fi
for args in "-b" "-b -a -w 1 -d 2" "-b -a -s pid,cgroup" "-b -a -s nope"; do
	rc=0
	# shellcheck disable=SC2086 # the words of args are options
	"$PERFMINI" top $args >/dev/null 2>"$tmp/usage.err" || rc=$?
	[ "$rc" -eq 2 ] || fail "top $args: exit $rc, not 2"
	say "top $args: $(head -n 1 "$tmp/usage.err")"
done
# perf top's --stdio: one line that names -b.
rc=0
"$PERFMINI" top --stdio -a >/dev/null 2>"$tmp/usage.err" || rc=$?
[ "$rc" -eq 2 ] || fail "top --stdio: exit $rc, not 2"
grep -q "^perfmini: --stdio is perf's, not perfmini top's: -b (--batch) prints" "$tmp/usage.err" ||
	fail "top --stdio does not name -b: $(head -n 1 "$tmp/usage.err")"
exit 0
