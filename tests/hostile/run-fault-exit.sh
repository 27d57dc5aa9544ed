#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The target exits while it is being recorded; perfmini must end on its
# own, within a few seconds, with exit 0 and a complete file holding the
# target's samples (>= 90% of them in spin_hot):
#  1. 'record -p' of spin-pie, which exits normally after 0.8 CPU seconds;
#  2. 'record -p' of spin-pie, killed with SIGKILL after 0.5 CPU seconds;
#  3. the same in DWARF mode (--call-graph=dwarf): the stacks copied
#     before the kill are unwound after the process is gone;
#  4. 'record -- spin-pie' whose command is killed with SIGKILL after 0.5
#     CPU seconds (the recorder is its parent).
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

need_perf

# attach_case NAME HOW [RECORD-OPTIONS...]: starts spin-pie 30 (or 0.8 for
# HOW=exit), attaches, lets it exit or kills it, checks the recording.
attach_case() {
	ac_name=$1
	ac_how=$2
	shift 2
	ac_secs=30
	[ "$ac_how" = exit ] && ac_secs=0.8
	"$TARGETS/spin-pie" "$ac_secs" &
	ac_target=$!
	track "$ac_target"
	record_bg "$tmp/$ac_name.data" "$@" -p "$ac_target"
	# A target that only runs 0.8 s may end, and its recorder with it,
	# before the recorder is seen attached: its file is checked below.
	if ! wait_attached "$rec_pid" 30; then
		if [ "$ac_how" != exit ] || alive "$rec_pid"; then
			fail "$ac_name: perfmini did not attach within 30 s: $(cat "$tmp/record.err")"
		fi
	fi
	if [ "$ac_how" = kill ]; then
		wait_cpu "$ac_target" 5 30 || fail "$ac_name: spin-pie got no 0.5 s of CPU in 30 s"
		kill -KILL "$ac_target"
	fi
	wait_exit "$ac_target" 60 || fail "$ac_name: spin-pie still running after 60 s"
	wait "$ac_target" || :
	# Its recorder must notice on its own: no signal is sent to it.
	record_wait 10 "$tmp/$ac_name.data"
	run_report "$tmp/$ac_name.data" "$tmp/$ac_name.folded"
	check_share "$tmp/$ac_name.folded" spin_hot spin-pie 100
}

attach_case exit exit
attach_case kill kill
attach_case dwarf kill --call-graph=dwarf,8192

# 4. The recorded command killed under the recorder.
record_bg "$tmp/cmd.data" -- "$TARGETS/spin-pie" 30
child=
n=100
while [ -z "$child" ] && [ "$n" -gt 0 ] && alive "$rec_pid"; do
	sleep 0.1
	n=$((n - 1))
	child=$(children_of "$rec_pid")
done
[ -n "$child" ] || fail "perfmini record -- spin-pie 30 started no command"
wait_cpu "$child" 5 30 || fail "spin-pie got no 0.5 s of CPU in 30 s"
kill -KILL "$child"
record_wait 10 "$tmp/cmd.data"
run_report "$tmp/cmd.data" "$tmp/cmd.folded"
check_share "$tmp/cmd.folded" spin_hot spin-pie 100
