#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Attaching to a process with many threads: fault-threads starts 1,500
# sleeping threads and spends its time in many_hot on its main thread.
# 'record -p PID -d 2' opens the events of every thread (3,000 on two
# CPUs) disabled and enables them all at once, so no sample is taken
# during the attach, stamped before the start: at most 1% of the samples
# (and at most 3) fall in the recording's first millisecond, where the
# attach would put hundreds. No record may be lost. Then 'record -p
# PID,PID': a process named twice is recorded once, so its samples do not
# exceed what its CPU time allows at 999 Hz (with 20% and 50 to spare).
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

FAULT_THREADS=$top_builddir/tests/hostile/fault-threads
[ -x "$FAULT_THREADS" ] || fail "no $FAULT_THREADS: build it first (make check)"
hz=$(getconf CLK_TCK)

need_perf
"$FAULT_THREADS" many 1500 60 >"$tmp/target.out" 2>"$tmp/target.err" &
tpid=$!
track "$tpid"
wait_line "$tmp/target.out" '^fault-threads: ready' 30 ||
	fail "fault-threads did not start: $(cat "$tmp/target.err")"

run_record 60 "$tmp/many.data" -F 999 -p "$tpid" -d 2
run_report "$tmp/many.data" "$tmp/many.folded"
total=$(awk '{ n += $NF } END { print n + 0 }' "$tmp/many.folded")
"$PERFMINI" report -i "$tmp/many.data" --folded --time 0,0.001 >"$tmp/first.folded" ||
	fail "report --time 0,0.001 failed"
first=$(awk '{ n += $NF } END { print n + 0 }' "$tmp/first.folded")
lost=$("$PERFMINI" report -i "$tmp/many.data" | sed -n 's/^Lost: *//p')
say "1,500 threads: $total samples, $first in the first millisecond; lost: $lost"
# A loaded machine gives many_hot a fraction of a CPU: 150 samples still judge.
[ "$total" -ge 150 ] || fail "only $total samples"
if [ "$first" -gt 3 ] || [ $((first * 100)) -gt "$total" ]; then
	fail "$first of $total samples stamped in the first millisecond: sampled during the attach"
fi
[ "$lost" = none ] || fail "records lost during the attach: $lost"

before=$(cpu_ticks "$tpid")
run_record 30 "$tmp/twice.data" -F 999 -p "$tpid,$tpid" -d 1
after=$(cpu_ticks "$tpid")
run_report "$tmp/twice.data" "$tmp/twice.folded"
samples=$(awk '{ n += $NF } END { print n + 0 }' "$tmp/twice.folded")
max=$(awk -v t=$((after - before)) -v hz="$hz" 'BEGIN { printf "%d", t / hz * 999 * 1.2 + 50 }')
say "-p PID,PID: $samples samples, at most $max for the CPU time used"
[ "$samples" -le "$max" ] || fail "-p PID,PID: $samples samples, more than $max: counted twice"
