#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# -a, the whole system. Started while dlopen-late waits; then spin-pie is
# started (1 CPU second in spin_hot) and dlopen-late told to map
# libplugin.so and spend 1 CPU second in plugin_hot; stopped by SIGINT
# once both exited. Among everything else on the machine, the samples of
# spin-pie (a process started after the attach) must name spin_hot, and
# those of dlopen-late (a process that existed before, whose
# first record is a mapping) plugin_hot. Both run as copies named for this
# test run, so that the same programs run by other tests at the same time
# (make -j) are not counted.
# Then 'record -a -- spin-pie 1' (perf's meaning: the whole system until
# the command exits) while another copy of spin-pie, started before and
# not by the recorder, spins: the recorder must end by itself once its
# command exits (exit 0, within 30 s), and both the command's samples and
# the outsider's must name spin_hot under main.
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

need_perf
spin=spin-a$$
late=late-a$$
cp "$TARGETS/spin-pie" "$tmp/$spin"
cp "$TARGETS/dlopen-late" "$tmp/$late"
"$tmp/$late" 1 "$TARGETS/libplugin.so" >"$tmp/target.out" 2>"$tmp/target.err" &
dpid=$!
track "$dpid"
wait_line "$tmp/target.out" '^dlopen-late: ready' 30 ||
	fail "dlopen-late did not start: $(cat "$tmp/target.err")"

record_bg "$tmp/all.data" -a
wait_attached "$rec_pid" 30 ||
	fail "perfmini record -a did not start within 30 s: $(cat "$tmp/record.err")"
kill -USR1 "$dpid"
rc=0
run_timeout 60 "$tmp/$spin" 1 || rc=$?
[ "$rc" -eq 0 ] || fail "spin-pie exited $rc"
wait_exit "$dpid" 60 || fail "dlopen-late still running after 60 s"
rc=0
wait "$dpid" || rc=$?
[ "$rc" -eq 0 ] || fail "dlopen-late exited $rc: $(cat "$tmp/target.err")"
alive "$rec_pid" || fail "perfmini record -a stopped by itself"
kill -INT "$rec_pid"
# The stop names every process's frames: slow in a sanitizer build on a loaded machine.
record_wait 60 "$tmp/all.data"

run_report "$tmp/all.data" "$tmp/all.folded"
check_share "$tmp/all.folded" spin_hot "$spin" 200
check_share "$tmp/all.folded" "main;spin_hot" "$spin" 200
check_share "$tmp/all.folded" plugin_hot "$late" 200

# -a with a command.
cmd=spin-c$$
outside=spin-o$$
cp "$TARGETS/spin-pie" "$tmp/$cmd"
cp "$TARGETS/spin-pie" "$tmp/$outside"
"$tmp/$outside" 30 >/dev/null 2>&1 &
opid=$!
track "$opid"
wait_cpu "$opid" 2 30 || fail "the outside spin-pie did not start"
run_record 60 "$tmp/cmd.data" -a -- "$tmp/$cmd" 1
kill "$opid" 2>/dev/null || :
run_report "$tmp/cmd.data" "$tmp/cmd.folded"
check_share "$tmp/cmd.folded" "main;spin_hot" "$cmd" 200
check_share "$tmp/cmd.folded" "main;spin_hot" "$outside" 100
