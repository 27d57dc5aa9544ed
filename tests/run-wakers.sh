#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# 'record --off-cpu' with wake-ups (the sched_waking tracepoint), on
# wakers.c: a sleeper waits on a condition variable that a waker signals
# from wk_signal_here, a spinner competing for the one CPU all three are
# pinned to. The sleeper prints the kernel's own counters for itself
# (schedstat: time on the CPU, time runnable waiting for it) and its life.
# Of the sleeper's thread:
#   --wakers --folded   wk_signal_here in the waker's stack (after "--")
#                       on at least 80% of its sleeping time; --top names
#                       it too;
#   sleeping            (switch-out to wake-up) within 15% + 5 ms of its
#                       life less its time on the CPU and runnable;
#   runnable            (wake-up or preemption to switch-in) within
#                       15% + 5 ms of schedstat's run delay;
#   wall                (CPU periods plus off-CPU time) within 1% of its
#                       life.
set -eu
. "${srcdir:-$(dirname "$0")/..}/tests/lib.sh"

need_perf
# At 4,000 Hz: the CPU part of wall is counted by samples, whose noise at
# 999 Hz (about 10 of the sleeper's 100 ms) is already 1% of its life.
run_record 120 "$tmp/wk.data" --off-cpu -F 4000 -- "$TARGETS/wakers" 100
cp "$tmp/record.out" "$tmp/wk.out"
# shellcheck disable=SC2046 # the line's fields, split on purpose
set -- $(grep '^sleeper ' "$tmp/wk.out")
[ $# -eq 5 ] || fail "wakers printed no 'sleeper TID LIFE RUN DELAY' line"
tid=$2 life=$3 run=$4 delay=$5
asleep=$((life - run - delay))

rc=0
"$PERFMINI" report -i "$tmp/wk.data" --wakers --folded --tid "$tid" >"$tmp/wakers.folded" \
	2>"$tmp/wakers.err" || rc=$?
cat "$tmp/wakers.err" >&3
[ "$rc" -eq 0 ] || fail "report --wakers exited $rc (no wake-ups recorded?)"
awk '{ n = $NF; t += n; if (index($0, ";--;") && index(substr($0, index($0, ";--;")), ";wk_signal_here;")) w += n }
	END { printf "%d %d\n", w, t }' "$tmp/wakers.folded" >"$tmp/share"
read -r by_fn all <"$tmp/share"
say "sleeping ns with wk_signal_here waking: $by_fn of $all"
if [ "$all" -eq 0 ] || [ $((by_fn * 10)) -lt $((all * 8)) ]; then
	fail "wk_signal_here wakes the sleeper for $by_fn of its $all sleeping ns, under 80%"
fi
"$PERFMINI" report -i "$tmp/wk.data" --wakers --tid "$tid" >"$tmp/wakers.top" 2>&3 ||
	fail "report --wakers (top) exited $?"
grep -q 'woken by .*wk_signal_here;waker;' "$tmp/wakers.top" ||
	fail "report --wakers names no waker through wk_signal_here"

# within WHAT GOT WANT PERMILLE EXTRA_NS
within() {
	awk -v got="$2" -v want="$3" -v pm="$4" -v extra="$5" 'BEGIN {
		d = got - want; if (d < 0) d = -d
		exit !(d <= want * pm / 1000 + extra) }' ||
		fail "$1: $(($2 / 1000000)) ms, the kernel's $(($3 / 1000000)) ms"
	say "$1: $(($2 / 1000000)) ms, the kernel's $(($3 / 1000000)) ms"
}

# state_ns STATE: the sleeper's off-CPU ns in STATE, from the --top header's Weight line.
state_ns() {
	"$PERFMINI" report -i "$tmp/wk.data" --sample-type=off-cpu --off-cpu-state="$1" \
		--tid "$tid" -n 0 >"$tmp/state.txt" 2>&3 || fail "report --off-cpu-state=$1 exited $?"
	awk '/^Weight:/ { printf "%.0f\n", $2 * 1e6; exit }' "$tmp/state.txt"
}
within sleeping "$(state_ns sleeping)" "$asleep" 150 5000000
within runnable "$(state_ns runnable)" "$delay" 150 5000000
"$PERFMINI" report -i "$tmp/wk.data" --sample-type=wall --tid "$tid" -n 0 >"$tmp/wall.txt" 2>&3 ||
	fail "report --sample-type=wall exited $?"
within wall "$(awk '/^Weight:/ { printf "%.0f\n", $2 * 1e6; exit }' "$tmp/wall.txt")" \
	"$life" 10 0
exit 0
