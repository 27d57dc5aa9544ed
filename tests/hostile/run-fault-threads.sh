#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Threads created and destroyed while perfmini attaches: fault-threads
# starts and joins threads without pause (four at a time, each living for
# about 3 ms of CPU time: a thread sampled at 999 Hz of its own CPU time
# must live longer than a millisecond to be seen at all). 'record -p PID -d 1' attaches to it five times
# in a row; each time it must attach and stop by itself (exit 0 within
# 30 s, nothing on stderr), write a complete file with samples of the
# process (>= 20), and count no sample twice: the samples may not exceed
# what the process's CPU time during the recording allows at 999 Hz (with
# 20% and 50 samples to spare), which a thread opened twice (inherited,
# then found again in /proc/PID/task) would break.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

FAULT_THREADS=$top_builddir/tests/hostile/fault-threads
[ -x "$FAULT_THREADS" ] || fail "no $FAULT_THREADS: build it first (make check)"
hz=$(getconf CLK_TCK)

need_perf
"$FAULT_THREADS" churn 120 >"$tmp/target.out" 2>"$tmp/target.err" &
tpid=$!
track "$tpid"
wait_line "$tmp/target.out" '^fault-threads: ready' 30 ||
	fail "fault-threads did not start: $(cat "$tmp/target.err")"

for i in 1 2 3 4 5; do
	alive "$tpid" || fail "fault-threads exited early: $(cat "$tmp/target.err")"
	before=$(cpu_ticks "$tpid")
	run_record 30 "$tmp/churn$i.data" -F 999 -p "$tpid" -d 1
	after=$(cpu_ticks "$tpid")
	run_report "$tmp/churn$i.data" "$tmp/churn$i.folded"
	samples=$(awk '{ n += $NF } END { print n + 0 }' "$tmp/churn$i.folded")
	hot=$(grep -c 'churn_hot' "$tmp/churn$i.folded" || :)
	max=$(awk -v t=$((after - before)) -v hz="$hz" 'BEGIN { printf "%d", t / hz * 999 * 1.2 + 50 }')
	say "attach $i: $samples samples ($hot stacks in churn_hot), the process used" \
		"$((after - before)) ticks of $hz/s: at most $max samples"
	[ "$samples" -ge 20 ] || fail "attach $i: only $samples samples"
	[ "$hot" -gt 0 ] || fail "attach $i: no sample in churn_hot: the churning threads were missed"
	[ "$samples" -le "$max" ] ||
		fail "attach $i: $samples samples, more than the CPU time allows ($max): samples counted twice"
done
