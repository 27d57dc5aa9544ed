#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Little or no permission for perf events: perfmini run as an unprivileged
# user (nobody, through setpriv, when the test runs as root; else the user
# running it). What is refused must be refused cleanly: exit 1, exactly one
# line on stderr that names kernel.perf_event_paranoid, no crash, and no
# data file. It relies on kernel.perf_event_paranoid being 2 or more (no
# kernel samples and no CPU-wide events for unprivileged users; Debian's 3:
# no perf events at all); where it is lower, the test raises it to 2 for
# its duration, if it can, and restores it. The cases:
#   record -a -d 0.2          every process: a CPU-wide event, refused
#   record -- spin-pie 0.3    a command: at level 2 recorded with user code
#                             only, as perf does, saying so in one line on
#                             stderr (none with -q) and in the report's
#                             header, with no kernel frame; refused at 3
#   record --off-cpu-only     refused: threads are switched out in the
#                             kernel; at level 2, record --off-cpu records
#                             the samples and says in one line that it
#                             records no off-CPU time
#   record -p PID             a process of root's (also refused at any
#                             paranoid level: another user's process); at
#                             level 2 the error names CAP_SYS_PTRACE
#   record -- a set-user-ID root copy of spin-pie: no samples (the
#                             kernel stops the events at that exec), and
#                             the summary says why
set -eu
. "${srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

knob=/proc/sys/kernel/perf_event_paranoid
orig=$(cat "$knob" 2>/dev/null || echo "")
[ -n "$orig" ] || skip "no $knob: perf events are not available"
need_perf

# A directory that user nobody can reach (the build tree may not be), with
# a copy of perfmini and a directory it may write.
ptmp=$(mktemp -d /tmp/perfmini-perm.XXXXXX) || fail "mktemp failed"
restored=yes
finish() {
	[ "$restored" = yes ] || echo "$orig" >"$knob" 2>/dev/null || :
	rm -rf "$ptmp"
	cleanup
}
trap finish EXIT
chmod 755 "$ptmp"
cp "$PERFMINI" "$ptmp/perfmini"
cp "$TARGETS/spin-pie" "$ptmp/spin-pie"
chmod 755 "$ptmp/perfmini" "$ptmp/spin-pie"
mkdir "$ptmp/out"

if [ "$(id -u)" -eq 0 ]; then
	command -v setpriv >/dev/null 2>&1 || fail "no setpriv (util-linux)"
	nobody=$(id -u nobody 2>/dev/null || echo 65534)
	chown "$nobody" "$ptmp/out"
	as_user() {
		setpriv --reuid="$nobody" --regid="$nobody" --clear-groups -- "$@"
	}
	who="nobody (uid $nobody)"
	# Only when needed: it is a setting of the whole machine.
	if [ "$orig" -lt 2 ] && echo 2 >"$knob" 2>/dev/null; then
		restored=no
		say "kernel.perf_event_paranoid set to 2 for the test (was $orig)"
	fi
else
	as_user() {
		"$@"
	}
	who="uid $(id -u)"
fi
level=$(cat "$knob")
[ "$level" -ge 2 ] || skip "kernel.perf_event_paranoid is $level and cannot be raised here:" \
	"an unprivileged user may record"

# refused WHAT ARGS...: 'perfmini record -q -o OUT ARGS' run as the
# unprivileged user must fail cleanly, naming perf_event_paranoid.
refused() {
	rf_what=$1
	shift
	rm -f "$ptmp/out/x.data"
	rf_rc=0
	run_timeout 30 as_user "$ptmp/perfmini" record -q -o "$ptmp/out/x.data" "$@" \
		>"$tmp/perm.out" 2>"$tmp/perm.err" 3>&- || rf_rc=$?
	rf_lines=$(awk 'END { print NR }' "$tmp/perm.err")
	say "$rf_what as $who (paranoid $level): exit $rf_rc: $(head -c 300 "$tmp/perm.err")"
	[ "$rf_rc" -ne 124 ] || fail "$rf_what: hung"
	[ "$rf_rc" -lt 128 ] || fail "$rf_what: killed by signal $((rf_rc - 128))"
	[ "$rf_rc" -eq 1 ] || fail "$rf_what: exit $rf_rc, want 1"
	[ "$rf_lines" -eq 1 ] || fail "$rf_what: $rf_lines lines on stderr, want 1"
	grep -q 'perf_event_paranoid' "$tmp/perm.err" ||
		fail "$rf_what: the error does not name perf_event_paranoid"
	[ ! -e "$ptmp/out/x.data" ] || fail "$rf_what: left a data file"
	rf_left=$(ls -A "$ptmp/out")
	[ -z "$rf_left" ] || fail "$rf_what: left $rf_left"
}

refused "record -a" -a -d 0.2
# Threads are switched out in the kernel: user code only records no span.
refused "record --off-cpu-only" --off-cpu-only -- "$ptmp/spin-pie" 0.1
if [ "$level" -ge 3 ]; then
	refused "record -- spin-pie" -- "$ptmp/spin-pie" 0.3
else
	# User code only, said once, and in the report.
	rc=0
	run_timeout 30 as_user "$ptmp/perfmini" record -o "$ptmp/out/u.data" -- "$ptmp/spin-pie" 0.3 \
		>"$tmp/user.out" 2>"$tmp/user.err" 3>&- || rc=$?
	say "record -- spin-pie as $who (paranoid $level): exit $rc: $(cat "$tmp/user.err")"
	[ "$rc" -eq 0 ] || fail "record -- spin-pie at paranoid $level: exit $rc, want 0"
	n=$(grep -c 'perf_event_paranoid' "$tmp/user.err" || :)
	[ "$n" -eq 1 ] || fail "record -- spin-pie: $n lines name perf_event_paranoid, want 1"
	"$PERFMINI" report --force -i "$ptmp/out/u.data" >"$tmp/user.top" 2>&1 ||
		fail "report of the user-only recording failed: $(cat "$tmp/user.top")"
	grep -q 'user code only.*perf_event_paranoid' "$tmp/user.top" ||
		fail "the report's header does not say user code only: $(head -n 4 "$tmp/user.top")"
	chown "$(id -u)" "$ptmp/out/u.data"
	run_report "$ptmp/out/u.data" "$tmp/user.folded"
	! grep -q '_\[k\]' "$tmp/user.folded" || fail "kernel frames in a user-only recording"
	grep -q ';spin_hot ' "$tmp/user.folded" || fail "no spin_hot in the user-only recording"
	rm -f "$ptmp/out/u.data"
	rc=0
	run_timeout 30 as_user "$ptmp/perfmini" record -q -o "$ptmp/out/q.data" -- "$ptmp/spin-pie" 0.1 \
		>"$tmp/q.out" 2>"$tmp/q.err" 3>&- || rc=$?
	if [ "$rc" -ne 0 ] || [ -s "$tmp/q.err" ]; then
		fail "record -q at paranoid $level: exit $rc, stderr: $(cat "$tmp/q.err")"
	fi
	rm -f "$ptmp/out/q.data"
	# --off-cpu records the samples and says, once, that it can record no span.
	rc=0
	run_timeout 30 as_user "$ptmp/perfmini" record --off-cpu -o "$ptmp/out/o.data" -- \
		"$ptmp/spin-pie" 0.1 >"$tmp/o.out" 2>"$tmp/o.err" 3>&- || rc=$?
	[ "$rc" -eq 0 ] || fail "record --off-cpu at paranoid $level: exit $rc: $(cat "$tmp/o.err")"
	n=$(grep -c 'no off-CPU time can be recorded' "$tmp/o.err" || :)
	[ "$n" -eq 1 ] || fail "record --off-cpu at paranoid $level does not say, once, that it" \
		"records no off-CPU time: $(cat "$tmp/o.err")"
	! grep -q 'wake-ups' "$tmp/o.err" || fail "record --off-cpu: a warning of wake-ups besides"
	rm -f "$ptmp/out/o.data"
	# A set-user-ID root program: no samples (the kernel stops a user's
	# events at such an exec), and the summary says why.
	if [ "$(id -u)" -eq 0 ]; then
		cp "$ptmp/spin-pie" "$ptmp/spin-suid"
		chmod 4755 "$ptmp/spin-suid"
		rc=0
		run_timeout 30 as_user "$ptmp/perfmini" record -o "$ptmp/out/s.data" -- \
			"$ptmp/spin-suid" 0.2 >"$tmp/s.out" 2>"$tmp/s.err" 3>&- || rc=$?
		say "record -- a set-user-ID root program as $who: exit $rc: $(cat "$tmp/s.err")"
		if grep -q ' 0 samples' "$tmp/s.err" &&
			! grep -q 'spin-suid is set-user-ID root' "$tmp/s.err"; then
			fail "no samples of a set-user-ID program, and no word of why"
		fi
		grep -q 'spin-suid is set-user-ID root' "$tmp/s.err" ||
			say "the program was sampled (a nosuid file system?): nothing to explain"
		rm -f "$ptmp/out/s.data" "$ptmp/spin-suid"
	fi
fi
if [ "$(id -u)" -eq 0 ]; then
	sleep 30 &
	spid=$!
	track "$spid"
	refused "record -p of root's process" -p "$spid" -d 0.2
	# The ways to be allowed are named (at 3 the level itself is the answer).
	if [ "$level" -eq 2 ] && ! grep -q 'CAP_SYS_PTRACE' "$tmp/perm.err"; then
		fail "record -p of root's process: the error does not name CAP_SYS_PTRACE"
	fi
fi
