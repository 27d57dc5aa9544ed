#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Threads created after the attach: 'threads' waits for SIGUSR1, which is
# sent only once 'perfmini record -p' holds its events on the (then single)
# thread, then starts 4 threads that name themselves hot-0..hot-3 and each
# spend 0.5 CPU seconds in thread_hot. Every sample must be in thread_hot
# (called from the thread function 'worker'), and each of the four thread
# names must have its samples: every new thread was followed.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

need_perf
"$TARGETS/threads" 0.5 >"$tmp/target.out" 2>"$tmp/target.err" &
tpid=$!
track "$tpid"
wait_line "$tmp/target.out" '^threads: ready' 30 ||
	fail "threads did not start: $(cat "$tmp/target.err")"

record_bg "$tmp/threads.data" -p "$tpid"
wait_attached "$rec_pid" 30 ||
	fail "perfmini record -p $tpid did not attach within 30 s: $(cat "$tmp/record.err")"
# shellcheck disable=SC2012 # thread ids: digits only
ntasks=$(ls "/proc/$tpid/task" | wc -l)
[ "$ntasks" -eq 1 ] || fail "threads has $ntasks threads before the attach: the test proves nothing"
kill -USR1 "$tpid"

wait_exit "$tpid" 60 || fail "threads still running after 60 s"
trc=0
wait "$tpid" || trc=$?
[ "$trc" -eq 0 ] || fail "threads exited $trc: $(cat "$tmp/target.err")"
record_wait 10 "$tmp/threads.data"

run_report "$tmp/threads.data" "$tmp/threads.folded"
check_share "$tmp/threads.folded" thread_hot "" 800
check_share "$tmp/threads.folded" "worker;thread_hot" "" 800
for n in 0 1 2 3; do
	check_share "$tmp/threads.folded" thread_hot "hot-$n" 200
done
