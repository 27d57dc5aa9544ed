#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A library loaded after the attach: sym-dl waits for SIGUSR1, sent once
# 'perfmini record -p' holds its events, then dlopen()s libsym-a.so and
# spends one CPU second in its liba_hot, called from run_a. The library
# was not in /proc/PID/maps at the attach: only the mapping record seen
# while recording can name liba_hot.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$srcdir/tests/symbol/symlib.sh"

need_target sym-dl
need_target libsym-a.so

need_perf
start_ready "$tmp/target.out" "$TARGETS/sym-dl" 1 "$TARGETS/libsym-a.so" liba_hot
record_bg "$tmp/late.data" -p "$tpid"
wait_attached "$rec_pid" 30 ||
	fail "perfmini record -p $tpid did not attach within 30 s: $(cat "$tmp/record.err")"
if grep -q libsym-a "/proc/$tpid/maps"; then
	fail "libsym-a.so was mapped before the attach: the test proves nothing"
fi
kill -USR1 "$tpid"
finish_target 60
record_wait 10 "$tmp/late.data"

run_report "$tmp/late.data" "$tmp/late.folded"
check_user "$tmp/late.folded" liba_hot sym-dl 200
check_user "$tmp/late.folded" "main;run_a;liba_hot" sym-dl 200
