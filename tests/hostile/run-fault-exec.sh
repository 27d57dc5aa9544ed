#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The target execs another program while it is recorded: fault-exec
# spends 0.5 CPU seconds in before_exec_hot(), then execs spin-pie, which
# spends 0.5 CPU seconds in spin_hot() (spin-pie 1: a thread's CPU time
# goes on across an exec). The samples from before the exec
# must carry the name fault-exec and be symbolized against fault-exec's
# binary (>= 90% in before_exec_hot), those after it the name spin-pie and
# spin-pie's binary (>= 90% in spin_hot); neither function may show up
# under the other name. Recorded twice:
#  1. 'record -- fault-exec ...' (the exec of a followed command);
#  2. 'record -p' attached to fault-exec before it starts counting (the
#     exec of an attached process, whose maps were read from /proc).
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

FAULT_EXEC=$top_builddir/tests/hostile/fault-exec
[ -x "$FAULT_EXEC" ] || fail "no $FAULT_EXEC: build it first (make check)"

check_exec() {
	run_report "$1" "$tmp/exec.folded"
	check_share "$tmp/exec.folded" before_exec_hot fault-exec 100
	check_share "$tmp/exec.folded" spin_hot spin-pie 100
	if grep -E '^spin-pie;.*before_exec_hot' "$tmp/exec.folded" >&3 ||
		grep -E '^fault-exec;.*spin_hot' "$tmp/exec.folded" >&3; then
		fail "samples symbolized against the other program (above)"
	fi
}

need_perf
run_record 60 "$tmp/cmd.data" -- "$FAULT_EXEC" 0.5 - "$TARGETS/spin-pie" 1
check_exec "$tmp/cmd.data"

"$FAULT_EXEC" 0.5 "$tmp/go" "$TARGETS/spin-pie" 1 >"$tmp/target.out" 2>"$tmp/target.err" &
tpid=$!
track "$tpid"
wait_line "$tmp/target.out" '^fault-exec: ready' 30 ||
	fail "fault-exec did not start: $(cat "$tmp/target.err")"
record_bg "$tmp/attach.data" -p "$tpid"
wait_attached "$rec_pid" 30 ||
	fail "perfmini record -p $tpid did not attach within 30 s: $(cat "$tmp/record.err")"
: >"$tmp/go"
wait_exit "$tpid" 60 || fail "fault-exec and spin-pie still running after 60 s"
trc=0
wait "$tpid" || trc=$?
[ "$trc" -eq 0 ] || fail "fault-exec/spin-pie exited $trc: $(cat "$tmp/target.err")"
record_wait 10 "$tmp/attach.data"
check_exec "$tmp/attach.data"
