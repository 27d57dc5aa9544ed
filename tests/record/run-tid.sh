#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# -t TID, one thread only:
#  - the main thread of a running spin-pie (1 CPU second in spin_hot):
#    spin_hot is named;
#  - the main thread of 'threads', attached before it starts 4 workers
#    (0.3 CPU seconds each in thread_hot), then spends 0.5 CPU seconds in
#    main_hot: main_hot is named and no worker is seen (-t does not follow
#    new threads, unlike -p);
#  - dlopen-late, attached while it waits, before it maps libplugin.so and
#    spends 0.5 CPU seconds in plugin_hot: the samples carry its name
#    (comm), though the first record of the process is that mapping.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

need_perf
"$TARGETS/spin-pie" 1 &
spid=$!
track "$spid"
record_bg "$tmp/tid.data" -t "$spid"
wait_exit "$spid" 60 || fail "spin-pie still running after 60 s"
trc=0
wait "$spid" || trc=$?
[ "$trc" -eq 0 ] || fail "spin-pie exited $trc"
record_wait 10 "$tmp/tid.data"
run_report "$tmp/tid.data" "$tmp/tid.folded"
check_share "$tmp/tid.folded" spin_hot spin-pie 200
check_share "$tmp/tid.folded" "main;spin_hot" spin-pie 200

# attach_tid DATAFILE READY-RE CMD...: starts CMD, a target that says it
# is ready and waits for SIGUSR1, records its main thread with -t, sends
# the signal, and waits for both.
attach_tid() {
	at_data=$1
	at_ready=$2
	shift 2
	"$@" >"$tmp/target.out" 2>"$tmp/target.err" &
	at_pid=$!
	track "$at_pid"
	wait_line "$tmp/target.out" "$at_ready" 30 ||
		fail "$1 did not start: $(cat "$tmp/target.err")"
	record_bg "$at_data" -t "$at_pid"
	wait_attached "$rec_pid" 30 ||
		fail "perfmini record -t $at_pid did not attach within 30 s: $(cat "$tmp/record.err")"
	kill -USR1 "$at_pid"
	wait_exit "$at_pid" 60 || fail "$1 still running after 60 s"
	at_rc=0
	wait "$at_pid" || at_rc=$?
	[ "$at_rc" -eq 0 ] || fail "$1 exited $at_rc: $(cat "$tmp/target.err")"
	record_wait 10 "$at_data"
}

attach_tid "$tmp/main.data" '^threads: ready' "$TARGETS/threads" 0.3 0.5
run_report "$tmp/main.data" "$tmp/main.folded"
check_share "$tmp/main.folded" main_hot threads 200
# shellcheck disable=SC2046 # split into its fields on purpose
set -- $(leaf_share "$tmp/main.folded" thread_hot "")
say "-t on the main thread of 'threads': $1 of $2 samples in thread_hot (want 0)"
[ "$1" -eq 0 ] || fail "-t recorded $1 samples of threads created after the attach"

attach_tid "$tmp/late.data" '^dlopen-late: ready' \
	"$TARGETS/dlopen-late" 0.5 "$TARGETS/libplugin.so"
run_report "$tmp/late.data" "$tmp/late.folded"
check_share "$tmp/late.folded" plugin_hot dlopen-late 200
