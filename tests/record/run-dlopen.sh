#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A library loaded after the attach: dlopen-late waits for SIGUSR1, which
# is sent only once 'perfmini record -p' holds its events, then dlopen()s
# libplugin.so and spends one CPU second in plugin_hot. The library was not
# in /proc/PID/maps when perfmini attached, so only the mapping record
# (MMAP2) seen while recording can name plugin_hot.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

need_perf
"$TARGETS/dlopen-late" 1 "$TARGETS/libplugin.so" >"$tmp/target.out" 2>"$tmp/target.err" &
tpid=$!
track "$tpid"
wait_line "$tmp/target.out" '^dlopen-late: ready' 30 ||
	fail "dlopen-late did not start: $(cat "$tmp/target.err")"

record_bg "$tmp/late.data" -p "$tpid"
wait_attached "$rec_pid" 30 ||
	fail "perfmini record -p $tpid did not attach within 30 s: $(cat "$tmp/record.err")"
if grep -q libplugin "/proc/$tpid/maps"; then
	fail "libplugin.so was mapped before the attach: the test proves nothing"
fi
kill -USR1 "$tpid"

wait_exit "$tpid" 60 || fail "dlopen-late still running after 60 s"
trc=0
wait "$tpid" || trc=$?
[ "$trc" -eq 0 ] || fail "dlopen-late exited $trc: $(cat "$tmp/target.err")"
record_wait 10 "$tmp/late.data"

run_report "$tmp/late.data" "$tmp/late.folded"
check_share "$tmp/late.folded" plugin_hot dlopen-late 200
check_share "$tmp/late.folded" "main;plugin_hot" dlopen-late 200
